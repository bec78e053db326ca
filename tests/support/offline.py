"""What a fresh-process test runs first to stand for a machine with no network and no llama-index-core.

Prepend :data:`NO_NETWORK_NO_LLAMA_INDEX` to the script given to ``python -c``: every socket connection
then fails, and ``llama_index`` cannot be imported (so its copy of tiktoken's files is out of reach too).
"""

from __future__ import annotations

NO_NETWORK_NO_LLAMA_INDEX = r"""
import importlib.abc, socket, sys

class NoLlamaIndex(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "llama_index" or name.startswith("llama_index."):
            raise ModuleNotFoundError(name)
        return None

def no_network(*args, **kwargs):
    raise OSError("network blocked by the test")

sys.meta_path.insert(0, NoLlamaIndex())
socket.socket.connect = no_network
socket.create_connection = no_network
"""
