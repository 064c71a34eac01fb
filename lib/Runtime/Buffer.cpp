//===- Buffer.cpp - Device memory -----------------------------------------===//

#include "Buffer.h"
#include "VulkanDevice.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include <sys/mman.h>

namespace ejk::runtime {

namespace {
/// Buffers of at least this many bytes are placed on 2 MiB boundaries and
/// asked for transparent huge pages (MADV_HUGEPAGE; Linux's default THP
/// mode is `madvise`): a kernel that walks a large array with a stride
/// (a decode's token-major K/V: one 512-byte row of a head every 4 KiB)
/// touches a new 4 KiB page with every row, a TLB miss each, where a
/// 2 MiB page serves 512 rows. EJK_CPU_HUGE_PAGES=0 turns it off.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugePageMinimum = size_t(4) << 20;

bool hugePagesWanted(size_t bytes) {
  static const bool enabled = [] {
    const char *env = std::getenv("EJK_CPU_HUGE_PAGES");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  return enabled && bytes >= kHugePageMinimum;
}
} // namespace

Status Buffer::create(std::shared_ptr<Device> device, size_t bytes,
                      std::unique_ptr<Buffer> &out, bool exportable) {
  out.reset();
  if (!device)
    return Status::invalidArgument("buffer has no device");
  if (exportable && device->kind() != Device::Kind::Vulkan)
    return Status::unavailable(
        "ejk_buffer_create_exportable: the CPU device's buffers are host "
        "memory; only a Vulkan device exports memory");
  if (device->kind() == Device::Kind::Vulkan) {
    std::unique_ptr<VulkanBuffer> vulkan;
    if (Status status =
            VulkanBuffer::create(std::static_pointer_cast<VulkanDevice>(device),
                                 bytes, vulkan, exportable);
        !status)
      return status;
    out.reset(new Buffer(std::move(device), nullptr, bytes));
    out->vulkan_ = std::move(vulkan);
    return Status::success();
  }
  // Rounding up keeps whole-cache-line vector accesses at the end in bounds
  // of the allocation; 0 bytes still gets a distinct, non-null pointer.
  if (bytes > std::numeric_limits<size_t>::max() - kBufferAlignment)
    return Status::invalidArgument("cannot allocate a buffer of " +
                                   std::to_string(bytes) + " bytes");
  size_t allocated = bytes == 0 ? kBufferAlignment
                                : (bytes + kBufferAlignment - 1) /
                                      kBufferAlignment * kBufferAlignment;
  void *data = nullptr;
  bool huge = hugePagesWanted(allocated);
  if (huge)
    allocated = (allocated + kHugePage - 1) / kHugePage * kHugePage;
  if (posix_memalign(&data, huge ? kHugePage : kBufferAlignment, allocated) !=
          0 ||
      !data)
    return Status::internal("out of memory allocating a buffer of " +
                            std::to_string(bytes) + " bytes");
  // Advice only: a kernel without THP ignores it (before the first touch).
  if (huge)
    (void)madvise(data, allocated, MADV_HUGEPAGE);
  std::memset(data, 0, allocated);
  out.reset(new Buffer(std::move(device), data, bytes));
  return Status::success();
}

Buffer::~Buffer() { std::free(data_); }

Status Buffer::checkRange(const char *operation, size_t bytes,
                          size_t offset) const {
  if (offset > size_ || bytes > size_ - offset)
    return Status::invalidArgument(
        std::string(operation) + " of " + std::to_string(bytes) +
        " bytes at offset " + std::to_string(offset) +
        " is out of range for a buffer of " + std::to_string(size_) + " bytes");
  return Status::success();
}

Status Buffer::upload(const void *src, size_t bytes, size_t offset) {
  // NULL is fine for an empty copy: std::vector::data() of an empty vector.
  if (!src && bytes != 0)
    return Status::invalidArgument("upload source is NULL");
  if (Status status = checkRange("upload", bytes, offset); !status)
    return status;
  if (bytes == 0)
    return Status::success();
  if (vulkan_)
    return vulkan_->upload(src, bytes, offset);
  std::memcpy(static_cast<char *>(data_) + offset, src, bytes);
  return Status::success();
}

Status Buffer::download(void *dst, size_t bytes, size_t offset) const {
  if (!dst && bytes != 0)
    return Status::invalidArgument("download destination is NULL");
  if (Status status = checkRange("download", bytes, offset); !status)
    return status;
  if (bytes == 0)
    return Status::success();
  if (vulkan_)
    return vulkan_->download(dst, bytes, offset);
  std::memcpy(dst, static_cast<const char *>(data_) + offset, bytes);
  return Status::success();
}

Status Buffer::copyTo(Buffer &dst, size_t srcOffset, size_t srcStride,
                      size_t dstOffset, size_t dstStride, size_t rowBytes,
                      size_t rows) const {
  if (dst.device_ != device_)
    return Status::invalidArgument(
        "ejk_buffer_copy: the buffers are on different devices");
  if (rows == 0 || rowBytes == 0)
    return Status::success();
  // The last row's start, overflow-checked; the rows before it lie below.
  size_t limit = std::numeric_limits<size_t>::max();
  size_t last = rows - 1;
  if ((srcStride && last > (limit - srcOffset) / srcStride) ||
      (dstStride && last > (limit - dstOffset) / dstStride))
    return Status::invalidArgument(
        "ejk_buffer_copy: the rows reach past the end of memory");
  if (Status status = checkRange("ejk_buffer_copy from", rowBytes,
                                 srcOffset + last * srcStride);
      !status)
    return status;
  if (Status status = dst.checkRange("ejk_buffer_copy to", rowBytes,
                                     dstOffset + last * dstStride);
      !status)
    return status;
  // Rows written over each other would leave an order-dependent result
  // (Vulkan does not order the regions of one copy).
  if (rows > 1 && dstStride < rowBytes)
    return Status::invalidArgument(
        "ejk_buffer_copy: the destination rows overlap (stride " +
        std::to_string(dstStride) + " bytes, rows of " +
        std::to_string(rowBytes) + ")");
  // Within one buffer the read and written bytes must not meet: Vulkan
  // leaves such a copy undefined (vkCmdCopyBuffer), so the CPU refuses it
  // too.
  if (&dst == this) {
    size_t srcEnd = srcOffset + last * srcStride + rowBytes,
           dstEnd = dstOffset + last * dstStride + rowBytes;
    if (srcOffset < dstEnd && dstOffset < srcEnd)
      return Status::invalidArgument(
          "ejk_buffer_copy: the source and destination ranges of one buffer "
          "overlap ([" +
          std::to_string(srcOffset) + ", " + std::to_string(srcEnd) +
          ") and [" + std::to_string(dstOffset) + ", " +
          std::to_string(dstEnd) + "))");
  }
  if (vulkan_)
    return vulkan_->copyTo(*dst.vulkan_, srcOffset, srcStride, dstOffset,
                           dstStride, rowBytes, rows);
  for (size_t i = 0; i < rows; ++i)
    std::memmove(static_cast<char *>(dst.data_) + dstOffset + i * dstStride,
                 static_cast<const char *>(data_) + srcOffset + i * srcStride,
                 rowBytes);
  return Status::success();
}

} // namespace ejk::runtime
