"""The benchmark of chop-integrations, a package beside the library (distribution ``chop-integrations-bench``).

Retrieval benchmarks (:mod:`.eval`), speed (:mod:`.speed`), stress runs (:mod:`.stress`), structure
(:mod:`.structure`) and scaling (:mod:`.scale`). Its commands are records of :mod:`.commands`, registered in the
``chop_integrations.commands`` entry-point group, so ``chop-integrations bench-speed`` and ``chop-bench bench-speed``
run the same thing. It imports the library; the library never imports it, and its wheel holds none of it.
"""
