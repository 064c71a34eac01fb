//===- SpirvWriter.h - SPIR-V binaries word by word -------------*- C++ -*-===//
//
// Writes a SPIR-V module as words, one instruction per call, for kernels
// whose instructions MLIR's SPIR-V dialect does not model (the
// VK_NV_cooperative_matrix2 flash attention, Ops/Attention/Vulkan/Cm2Kernel).
// Ids are named as in SPIR-V assembly ("%name") and numbered in the order
// their names are first written, which is the order SPIRV-Tools' assembler
// numbers them in: a module written here is word for word the one
// `spirv-as` makes of the same instructions in the same order (the header's
// generator word aside). MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_SPIRVWRITER_H
#define EJK_SUPPORT_SPIRVWRITER_H

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace ejk {

class SpirvWriter {
public:
  /// One operand: an id by name ("%name"), a literal word, or a literal
  /// string.
  struct Operand {
    enum class Kind { Id, Word, String };
    Kind kind;
    std::string text;
    uint32_t word = 0;

    Operand(const char *id) : kind(Kind::Id), text(id) {}
    Operand(const std::string &id) : kind(Kind::Id), text(id) {}
    Operand(int literal) : kind(Kind::Word), word(uint32_t(literal)) {}
    Operand(unsigned literal) : kind(Kind::Word), word(literal) {}
    static Operand string(const std::string &literal) {
      Operand o(0);
      o.kind = Kind::String;
      o.text = literal;
      return o;
    }
  };

  /// Appends the instruction `opcode` with `operands` (result type and
  /// result id first, as in the binary).
  void op(uint32_t opcode, std::initializer_list<Operand> operands);

  /// The number of `name`, given at its first use.
  uint32_t id(const std::string &name);

  /// The module: header (`version`, `generator`, the id bound) and the
  /// instructions in the order they were written.
  std::vector<uint32_t> module(uint32_t version, uint32_t generator) const;

  /// The bits of an f32 literal and of an IEEE binary16 literal (rounded to
  /// f32 first, then toward zero, as SPIRV-Tools' assembler reads f16 text).
  static uint32_t f32Bits(float value);
  static uint32_t f16Bits(double value);

private:
  std::map<std::string, uint32_t> ids;
  std::vector<uint32_t> words;
};

} // namespace ejk

#endif // EJK_SUPPORT_SPIRVWRITER_H
