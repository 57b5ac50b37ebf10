/* Fake optional libraries, one source built three times: -DFAKE_CUDNN gives libcudnn.so.9,
 * -DFAKE_NCCL libnccl.so.2, -DFAKE_CUTENSOR libcutensor.so.2, -DFAKE_HIP libamdhip64.so.
 * -DFAKE_CUDNN_NO_CUDART leaves out cudnnGetCudartVersion; -DFAKE_DEFAULT_CUDNN=N makes N the
 * version code when $FAKE_CUDNN_VERSION is unset (for probes whose environment is cleared).
 * $FAKE_CUDNN_VERSION, $FAKE_CUDNN_CUDART_VERSION, $FAKE_NCCL_VERSION and
 * $FAKE_CUTENSOR_VERSION replace the version codes;
 * $FAKE_NCCL_RESULT replaces ncclGetVersion's ncclResult_t (0, success, by default). */
#include "common.h"

#ifndef FAKE_DEFAULT_CUDNN
#define FAKE_DEFAULT_CUDNN 90100
#endif

#ifdef FAKE_CUDNN
size_t cudnnGetVersion(void) {
    return (size_t)fake_number("FAKE_CUDNN_VERSION", FAKE_DEFAULT_CUDNN);
}
#ifndef FAKE_CUDNN_NO_CUDART
/* The CUDA runtime cuDNN was built for: 12020 is 12.2 ($FAKE_CUDNN_CUDART_VERSION). */
size_t cudnnGetCudartVersion(void) {
    return (size_t)fake_number("FAKE_CUDNN_CUDART_VERSION", 12020);
}
#endif
#endif

#ifdef FAKE_NCCL
int ncclGetVersion(int *version) {
    *version = (int)fake_number("FAKE_NCCL_VERSION", 22105);
    return (int)fake_number("FAKE_NCCL_RESULT", 0);
}
#endif

#ifdef FAKE_CUTENSOR
size_t cutensorGetVersion(void) { return (size_t)fake_number("FAKE_CUTENSOR_VERSION", 20001); }
#endif

#ifdef FAKE_HIP
int hipRuntimeGetVersion(int *version) {
    *version = 60241133;
    return 0;
}
#endif
