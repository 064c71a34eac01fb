# Prints the runtime's own fingerprint of the first Vulkan device (ctypes,
# the runtime library in sys.argv[1]/libejk_runtime.so.1).
import ctypes, os, sys
rt = ctypes.CDLL(os.path.join(sys.argv[1], "libejk_runtime.so.1"))
rt.ejk_last_error.restype = ctypes.c_char_p
dev = ctypes.c_void_p()
if rt.ejk_device_create(b"vulkan", ctypes.byref(dev)) != 0:
    sys.exit("device: " + rt.ejk_last_error().decode())
buf = ctypes.create_string_buffer(16384)
n = ctypes.c_size_t(0)
if rt.ejk_device_fingerprint(dev, buf, ctypes.c_size_t(16384), ctypes.byref(n)) != 0:
    sys.exit("fingerprint: " + rt.ejk_last_error().decode())
print(buf.value.decode(), end="")
