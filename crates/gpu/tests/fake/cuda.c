/* A fake libcuda.so.1: the same two-GPU box through the driver API. $FAKE_CUDA_MODE:
 *   normal    two devices, CUDA 12.4 (or $FAKE_CUDA_VERSION)
 *   nodevice  cuInit fails with CUDA_ERROR_NO_DEVICE (100)
 *   initfail  cuInit fails with CUDA_ERROR_UNKNOWN (999)
 *   hang      cuInit never returns
 *   crash     cuDeviceGetAttribute writes through a null pointer (SIGSEGV)
 * As the real driver, cuInit fails with CUDA_ERROR_NO_DEVICE when $CUDA_VISIBLE_DEVICES is set
 * and empty (a process masked from every GPU). */
#include "common.h"

#define MODE(m) fake_is("FAKE_CUDA_MODE", m)

typedef int CUdevice;
typedef struct { unsigned char bytes[16]; } CUuuid;

static const char *names[2] = {"Fake A100-SXM4-80GB", "Fake H100 80GB HBM3"};

int cuInit(unsigned int flags) {
    if (flags != 0) return 1;
    if (MODE("nodevice")) return 100;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible && !*visible) return 100;
    if (MODE("initfail")) return 999;
    if (MODE("hang")) fake_hang();
    fake_log("cuInit");
    return 0;
}

int cuDriverGetVersion(int *version) {
    *version = (int)fake_number("FAKE_CUDA_VERSION", 12040);
    return 0;
}

int cuDeviceGetCount(int *count) { *count = 2; return 0; }

int cuDeviceGet(CUdevice *device, int ordinal) {
    if (ordinal < 0 || ordinal >= 2) return 101;
    *device = ordinal;
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
    if (MODE("crash")) fake_segfault();
    if (attribute == 75) { *value = device == 0 ? 8 : 9; return 0; }
    if (attribute == 76) { *value = 0; return 0; }
    return 1;
}

int cuDeviceGetName(char *name, int length, CUdevice device) {
    fake_copy(name, (unsigned int)length, names[device]);
    return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) {
    *bytes = (size_t)(80 + device) << 30;
    return 0;
}

int cuDeviceGetUuid(CUuuid *uuid, CUdevice device) {
    memset(uuid->bytes, 0, sizeof uuid->bytes);
    uuid->bytes[0] = 0xab;
    uuid->bytes[15] = (unsigned char)device;
    return 0;
}
