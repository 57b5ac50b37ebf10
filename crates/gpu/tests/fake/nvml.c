/* A fake libnvidia-ml.so.1: a two-GPU box (compute capability 8.0 and 9.0), driver 550.144.03,
 * CUDA 12.4 (or $FAKE_NVML_CUDA_VERSION, to disagree with libcuda as a forward-compatibility
 * libcuda does). $FAKE_NVML_MODE picks a misbehaviour:
 *   normal      the box above
 *   zero        driver loaded, no devices
 *   nodriver    nvmlInit fails with NVML_ERROR_DRIVER_NOT_LOADED (9)
 *   initfail    nvmlInit fails with NVML_ERROR_UNKNOWN (999)
 *   hang        nvmlDeviceGetCount never returns
 *   crash       nvmlDeviceGetCudaComputeCapability writes through a null pointer (SIGSEGV)
 *   abort       nvmlInit calls abort() (SIGABRT)
 *   badversion  CUDA version 1000000 and a driver version that is not one
 *   chatty      prints to stdout while initialising
 * Compile-time: -DFAKE_NO_V2 exports only the original entry points (no _v2);
 * -DFAKE_NO_COUNT exports no nvmlDeviceGetCount at all (a required symbol missing). */
#include "common.h"

#define MODE(m) fake_is("FAKE_NVML_MODE", m)

typedef struct { int index; } fake_device;
typedef fake_device *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;

static fake_device devices[2] = {{0}, {1}};
static const char *names[2] = {"Fake A100-SXM4-80GB", "Fake H100 80GB HBM3"};
static const int majors[2] = {8, 9};

static int init(void) {
    if (MODE("abort")) abort();
    if (MODE("nodriver")) return 9;
    if (MODE("initfail")) return 999;
    if (MODE("chatty")) { printf("fake NVML says hello\n"); fflush(stdout); }
    fake_log("nvmlInit");
    return 0;
}

#ifdef FAKE_NO_V2
int nvmlInit(void) { return init(); }
#else
int nvmlInit_v2(void) { return init(); }
#endif

int nvmlShutdown(void) { fake_log("nvmlShutdown"); return 0; }

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    fake_copy(version, length, MODE("badversion") ? "five-fifty" : "550.144.03");
    return 0;
}

static int cuda_version(int *version) {
    *version = MODE("badversion") ? 1000000 : (int)fake_number("FAKE_NVML_CUDA_VERSION", 12040);
    return 0;
}

#ifdef FAKE_NO_V2
int nvmlSystemGetCudaDriverVersion(int *version) { return cuda_version(version); }
#else
int nvmlSystemGetCudaDriverVersion_v2(int *version) { return cuda_version(version); }
int nvmlSystemGetCudaDriverVersion(int *version) { return cuda_version(version); }
#endif

static int count(unsigned int *n) {
    if (MODE("hang")) fake_hang();
    *n = MODE("zero") ? 0 : 2;
    return 0;
}

#ifndef FAKE_NO_COUNT
#ifdef FAKE_NO_V2
int nvmlDeviceGetCount(unsigned int *n) { return count(n); }
#else
int nvmlDeviceGetCount_v2(unsigned int *n) { return count(n); }
#endif
#endif

static int handle(unsigned int index, nvmlDevice_t *device) {
    if (index >= 2) return 2;
    *device = &devices[index];
    return 0;
}

#ifdef FAKE_NO_V2
int nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) { return handle(index, device); }
#else
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) { return handle(index, device); }
#endif

int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    if (MODE("crash")) fake_segfault();
    *major = majors[device->index];
    *minor = 0;
    return 0;
}

int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    fake_copy(name, length, names[device->index]);
    return 0;
}

int nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    char text[64];
    snprintf(text, sizeof text, "GPU-%08d-0000-0000-0000-000000000000", device->index);
    fake_copy(uuid, length, text);
    return 0;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    memory->total = (unsigned long long)(80 + device->index) << 30;
    memory->free = memory->total;
    memory->used = 0;
    return 0;
}
