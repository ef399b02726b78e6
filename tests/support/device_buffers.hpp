// Plans and halos on device buffers without a GPU: with WEFT_TEST_DEVICE_BUFFERS=1 the suites'
// buffers are tagged kDLCUDA and run through the NCCL plugin on the fake NCCL and the CUDA
// device operations' host build, whose "device memory" is host memory: the suites fill and
// check their buffers directly, after waiting for the device work (SyncDevice). Meaningful on
// the fakes only; on a GPU the suites run on host buffers.
#pragma once

#include <dlpack/dlpack.h>

namespace weft::test {

// Whether this launch tags its buffers as CUDA memory.
bool DeviceBuffers();
// kDLCUDA device 0 when DeviceBuffers(), else the CPU.
DLDevice BufferDevice();
// Waits for the work enqueued on the legacy default stream (where device work without a stream
// of its own goes); nothing on host buffers.
void SyncDevice();

}  // namespace weft::test
