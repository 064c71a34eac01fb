//===- Paged.h - Reference decode attention over a paged cache --*- C++ -*-===//
//
// The oracle for ejk.paged_attention over host f32 buffers, sums in double.
// Guards as the kernels do: a context length is clamped to
// [0, max_pages_per_seq * page_size] and a page index to [0, num_pages), so
// a bad table never reads outside the cache (ejk-run refuses such tables
// before running unless told otherwise; checkPageTables says what is wrong).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_PAGED_H
#define EJK_REFERENCE_PAGED_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace ejk::reference {

struct PagedAttentionOptions {
  float softmaxScale = 1.0f;
  /// Dequantization scales: scores times kScale, the output times vScale.
  float kScale = 1.0f, vScale = 1.0f;
  std::optional<float> softCap;
  /// The last `window` tokens of each sequence are visible.
  std::optional<int64_t> window;
  /// Pages are [num_pages, page_size, num_kv_heads, head_dim] when true,
  /// [num_pages, num_kv_heads, page_size, head_dim] otherwise.
  bool tokenMajor = false;
};

/// query [batch, num_heads, head_dim]; caches in the options' layout;
/// contextLens [batch]; blockTables [batch, max_pages]. out gets
/// [batch, num_heads, head_dim], lse [batch, num_heads] (-inf for an empty
/// sequence). Messages start with "paged_attention: ".
Status pagedAttention(const TensorRef<float> &query,
                      const TensorRef<float> &keyCache,
                      const TensorRef<float> &valueCache,
                      const TensorRef<float> &contextLens,
                      const TensorRef<float> &blockTables,
                      const PagedAttentionOptions &options,
                      std::vector<float> &out, std::vector<float> &lse);

/// What is wrong with a sequence's length or the pages it reads ("" when
/// valid): each length in [0, max_pages * page_size], each page index the
/// length reaches in [0, num_pages).
/// What is wrong with a page table ("" when nothing); the operands are
/// named `lensName` and `tableName` in the message.
std::string checkPageTables(const std::vector<int64_t> &contextLens,
                            const std::vector<int64_t> &blockTables,
                            int64_t maxPages, int64_t pageSize,
                            int64_t numPages,
                            const std::string &lensName = "context_lens",
                            const std::string &tableName = "block_tables");

} // namespace ejk::reference

#endif // EJK_REFERENCE_PAGED_H
