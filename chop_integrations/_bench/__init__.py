"""The top layer, outside the library: benchmarks (:mod:`.eval`), stress runs (:mod:`.stress`), the demo (:mod:`.demo`).

The library never imports anything from here.
"""
