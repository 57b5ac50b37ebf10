# markerspec's interpreter probe: run as `python -I -S -c <this>`; prints one JSON object.
# Standard library only, Python 3.4 and later. The Rust side maps `arch_raw` through the
# table of SPEC section 8.3 and reads the musl loader; everything else is final here.
import json
import os
import platform
import struct
import sys

try:
    import sysconfig
except Exception:  # a stripped-down interpreter
    sysconfig = None


def cvar(name):
    try:
        return sysconfig.get_config_var(name) if sysconfig else None
    except Exception:
        return None


def full_version(info):
    version = "%d.%d.%d" % (info.major, info.minor, info.micro)
    if info.releaselevel != "final":
        version += info.releaselevel[0] + str(info.serial)
    return version


impl = sys.implementation.name
bits = struct.calcsize("P") * 8

# PEP 780 (SPEC 8.1).
if hasattr(sys, "abi_features"):
    features = sorted(set(sys.abi_features))
else:
    features = set()
    if impl == "cpython":
        features.add("free-threading" if cvar("Py_GIL_DISABLED") == 1 else "gil-enabled")
        if (cvar("Py_DEBUG") == 1 or "d" in getattr(sys, "abiflags", "")
                or hasattr(sys, "gettotalrefcount")):
            features.add("debug")
    if bits in (32, 64):
        features.add("%d-bit" % bits)
    features = sorted(features)


# The ABI of packaging.tags.sys_tags()'s first tag (SPEC 8.2).
def abi_tag():
    ver = sys.version_info
    if impl == "cpython":
        debug = cvar("Py_DEBUG")
        try:
            import importlib.machinery
            suffixes = importlib.machinery.EXTENSION_SUFFIXES
        except Exception:
            suffixes = []
        d = ""
        if debug or (debug is None and (hasattr(sys, "gettotalrefcount") or "_d.pyd" in suffixes)):
            d = "d"
        t = "t" if ver >= (3, 13) and cvar("Py_GIL_DISABLED") else ""
        m = ""
        if ver < (3, 8):
            pymalloc = cvar("WITH_PYMALLOC")
            if pymalloc or pymalloc is None:
                m = "m"
        return "cp%d%d%s%s%s" % (ver[0], ver[1], t, d, m)
    ext = cvar("EXT_SUFFIX")
    if not isinstance(ext, str) or not ext.startswith("."):
        return None
    parts = ext.split(".")
    if len(parts) < 3:
        return "none"
    soabi = parts[1]
    if soabi.startswith("cpython"):
        abi = "cp" + soabi.split("-")[1]
    elif soabi.startswith("cp"):
        abi = soabi.split("-")[0]
    elif soabi.startswith("pypy"):
        abi = "-".join(soabi.split("-")[:2])
    elif soabi.startswith("graalpy"):
        abi = "-".join(soabi.split("-")[:3])
    elif soabi:
        abi = soabi
    else:
        return "none"
    return abi.replace(".", "_").replace("-", "_")


try:
    abi = abi_tag()
except Exception:
    abi = None

# SPEC 8.3, before the table.
try:
    plat = sysconfig.get_platform() if sysconfig else ""
except Exception:
    plat = ""
raw = "win32" if plat == "win32" else plat.rsplit("-", 1)[-1]
if raw in ("universal2", "universal", "intel", "fat", "fat3", "fat64") or not raw:
    raw = platform.machine()

libc = None
if hasattr(os, "confstr"):
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        libc = None

print(json.dumps({
    "markerspec_python_probe": 1,
    "standard": {
        "implementation_name": impl,
        "implementation_version": full_version(sys.implementation.version),
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "platform_python_implementation": platform.python_implementation(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    },
    "sys_abi_features": features,
    "python_abi_tag": abi,
    "arch_raw": raw,
    "pointer_bits": bits,
    "gnu_libc": libc,
    "executable": sys.executable,
}))
