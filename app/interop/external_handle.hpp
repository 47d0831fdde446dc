// The one place where sharing depends on the OS: which handle type Vulkan exports and CUDA
// imports (POSIX file descriptors, or Windows NT handles under _WIN32), behind one compile-time
// switch so SharedBuffer, SharedImage and Timeline keep the same interface on both.
//
// The _WIN32 branch is UNTESTED: no Windows compiler has built it and it has never run (tilelab
// is built and tested on Linux only). It mirrors the POSIX branch line for line: OPAQUE_WIN32
// handle types, vkGetMemoryWin32HandleKHR / vkGetSemaphoreWin32HandleKHR, cudaExternalMemory-
// HandleTypeOpaqueWin32 / cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32, CloseHandle.
// All it has had is a g++ -fsyntax-only pass on Linux with _WIN32 defined, against the real
// vulkan_win32.h and cuda_runtime.h and a stand-in <windows.h> in DIR (typedefs for HANDLE,
// DWORD, LPCWSTR, BOOL, HINSTANCE, HWND, HMONITOR, SECURITY_ATTRIBUTES; CloseHandle):
//   g++ -std=c++20 -fsyntax-only -D_WIN32 -D__stdcall= '-D__declspec(x)=' -DTILELAB_HAVE_CUDA=1
//       -IDIR -Icuda -Iapp -isystem /usr/local/cuda/include app/interop/<file>.cpp
#pragma once

#include "vk/context.hpp"

#include <string>
#include <vector>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <vulkan/vulkan_win32.h>
#endif

#if TILELAB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace tl::interop {

#if defined(_WIN32)
using NativeHandle = HANDLE;
inline constexpr VkExternalMemoryHandleTypeFlagBits kMemoryHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT;
inline constexpr VkExternalSemaphoreHandleTypeFlagBits kSemaphoreHandleType =
    VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_BIT;
inline constexpr const char* kHandleTypeName = "OPAQUE_WIN32";
#else
using NativeHandle = int;  // a file descriptor
inline constexpr VkExternalMemoryHandleTypeFlagBits kMemoryHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
inline constexpr VkExternalSemaphoreHandleTypeFlagBits kSemaphoreHandleType =
    VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
inline constexpr const char* kHandleTypeName = "OPAQUE_FD";
#endif

// The device extensions that export kMemoryHandleType / kSemaphoreHandleType.
const std::vector<std::string>& external_handle_extensions();

// Exports a handle to `memory` / `semaphore` (allocated with the handle type above). Throws
// vk::Error with the reason when the device lacks the export function or the call fails.
NativeHandle export_memory_handle(VkDevice device, VkDeviceMemory memory);
NativeHandle export_semaphore_handle(VkDevice device, VkSemaphore semaphore);

#if TILELAB_HAVE_CUDA
// Fills the handle type and handle of an import description.
void set_cuda_handle(cudaExternalMemoryHandleDesc& desc, NativeHandle handle);
void set_cuda_handle(cudaExternalSemaphoreHandleDesc& desc, NativeHandle handle);
#endif

// Call once the CUDA import has been tried. POSIX: a successful import owns the descriptor, so
// it is closed only when the import failed. Windows: CUDA never takes ownership of an NT
// handle, so it is closed either way.
void release_after_import(NativeHandle handle, bool imported) noexcept;

} // namespace tl::interop
