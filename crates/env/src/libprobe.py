# markerspec's optional-library probe (SPEC 0.2 section 8.10): run by the *target interpreter*
# as `python -I -S -c <this> LIBRARY`, with the minimal environment of section 10.2, once per
# library (cudnn, nccl, cutensor), so that a library that crashes or hangs costs only its own
# fields. Standard library only. Prints one JSON object; the Rust side decodes the version codes.
import ctypes
import json
import os
import sys

# name: (Linux sonames, Windows DLLs, version function, how it answers)
LIBRARIES = {
    "cudnn": (["libcudnn.so.9", "libcudnn.so.8"], ["cudnn64_9.dll", "cudnn64_8.dll"],
              "cudnnGetVersion", "size_t"),
    "nccl": (["libnccl.so.2"], [], "ncclGetVersion", "int_out"),
    "cutensor": (["libcutensor.so.2", "libcutensor.so.1"], ["cutensor.dll"],
                 "cutensorGetVersion", "size_t"),
}

LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR = 0x00000100
LOAD_LIBRARY_SEARCH_DEFAULT_DIRS = 0x00001000


def absolute_entries(value):
    """A PATH-style list without its empty, relative and `.` entries (section 10.2)."""
    return [p for p in (value or "").split(os.pathsep) if p and p != "." and os.path.isabs(p)]


def absolute_var(name):
    value = os.environ.get(name)
    return value if value and os.path.isabs(value) else None


def same_path(a, b):
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def candidates(sonames, dlls):
    """(step, what to load) in the order of section 8.10, step 2."""
    if sys.platform == "win32":
        # An explicit walk: ctypes (3.8+) does not search PATH.
        dirs = []
        conda = absolute_var("CONDA_PREFIX")
        if conda and same_path(sys.prefix, conda):
            dirs.append(("CONDA_PREFIX", os.path.join(conda, "Library", "bin")))
        dirs.extend(("PATH", d) for d in absolute_entries(os.environ.get("PATH")))
        cuda_path = absolute_var("CUDA_PATH")
        if cuda_path:
            dirs.append(("CUDA_PATH", os.path.join(cuda_path, "bin")))
        for step, directory in dirs:
            for name in dlls:
                path = os.path.join(directory, name)
                if os.path.isfile(path):
                    yield step, path
        return
    # (a) the loader of this process: its RPATH/RUNPATH, LD_LIBRARY_PATH, ld.so.cache.
    for name in sonames:
        yield "loader", name
    # (b) the toolkit folders, by absolute path.
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = absolute_var(var)
        if not root:
            continue
        for sub in ("lib64", "lib"):
            for name in sonames:
                path = os.path.join(root, sub, name)
                if os.path.isfile(path):
                    yield var, path


def load(what):
    if sys.platform == "win32":
        flags = LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
        try:
            return ctypes.WinDLL(what, winmode=flags)
        except TypeError:  # Python before 3.8 has no winmode
            return ctypes.WinDLL(what)
    # ctypes adds RTLD_NOW to the mode it passes to dlopen.
    return ctypes.CDLL(what, mode=getattr(os, "RTLD_LOCAL", 0))


def loaded_path(soname):
    """The file the loader picked for `soname`, from this process's mappings (Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.rstrip("\n").split(None, 5)[-1]
                if path.startswith("/") and os.path.basename(path) == soname:
                    return path
    except Exception:
        pass
    return None


def call_size_t(lib, name):
    function = getattr(lib, name)
    function.restype = ctypes.c_size_t
    function.argtypes = []
    return int(function())


def version(lib, name, kind):
    if kind == "size_t":
        return call_size_t(lib, name)
    function = getattr(lib, name)
    function.restype = ctypes.c_int
    value = ctypes.c_int(0)
    result = function(ctypes.byref(value))
    if result != 0:
        raise RuntimeError("%s returned %d" % (name, result))
    return value.value


def probe(library):
    if library not in LIBRARIES:
        return {"state": "failed", "reason": "unknown library %r" % library}
    sonames, dlls, function, kind = LIBRARIES[library]
    if sys.platform == "darwin":
        return {"state": "not_probed", "reason": "macOS has no CUDA libraries"}
    tried, errors = [], []
    for step, what in candidates(sonames, dlls):
        tried.append(what)
        try:
            lib = load(what)
        except OSError as e:
            errors.append("%s: %s" % (what, e))
            continue
        path = what if os.path.isabs(what) else (loaded_path(what) or what)
        reply = {"state": "loaded", "library": what, "path": path, "step": step}
        try:
            reply["code"] = version(lib, function, kind)
        except Exception as e:
            return {"state": "failed", "library": what, "path": path, "step": step,
                    "reason": "%s: %s" % (function, e)}
        if library == "cudnn":
            try:
                reply["cudart"] = call_size_t(lib, "cudnnGetCudartVersion")
            except Exception as e:
                reply["cudart_error"] = "cudnnGetCudartVersion: %s" % e
        return reply
    return {"state": "not_found", "tried": tried, "errors": errors[-4:]}


library = sys.argv[1] if len(sys.argv) > 1 else ""
try:
    answer = probe(library)
except Exception as e:  # never a traceback instead of an answer
    answer = {"state": "failed", "reason": "%s: %s" % (type(e).__name__, e)}
answer["markerspec_library_probe"] = 1
answer["library_name"] = library
sys.stdout.write(json.dumps(answer) + "\n")
