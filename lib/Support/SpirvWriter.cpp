//===- SpirvWriter.cpp - SPIR-V binaries word by word ---------------------===//

#include "ejk/Support/SpirvWriter.h"

#include <cassert>
#include <cstring>

using namespace ejk;

uint32_t SpirvWriter::id(const std::string &name) {
  assert(!name.empty() && name[0] == '%' && "an id is named '%name'");
  auto [it, inserted] = ids.emplace(name, uint32_t(ids.size() + 1));
  (void)inserted;
  return it->second;
}

void SpirvWriter::op(uint32_t opcode, std::initializer_list<Operand> operands) {
  size_t start = words.size();
  words.push_back(0);
  for (const Operand &operand : operands) {
    switch (operand.kind) {
    case Operand::Kind::Id:
      words.push_back(id(operand.text));
      break;
    case Operand::Kind::Word:
      words.push_back(operand.word);
      break;
    case Operand::Kind::String: {
      // UTF-8, nul-terminated, padded with nuls to whole little-endian words.
      size_t count = operand.text.size() / 4 + 1;
      size_t first = words.size();
      words.resize(first + count, 0);
      for (size_t i = 0; i < operand.text.size(); ++i)
        words[first + i / 4] |= uint32_t(uint8_t(operand.text[i]))
                                << (8 * (i % 4));
      break;
    }
    }
  }
  uint32_t count = uint32_t(words.size() - start);
  assert(count < 0x10000 && "instruction too long");
  words[start] = (count << 16) | opcode;
}

std::vector<uint32_t> SpirvWriter::module(uint32_t version,
                                          uint32_t generator) const {
  std::vector<uint32_t> out = {0x07230203u, version, generator,
                               uint32_t(ids.size() + 1), 0};
  out.insert(out.end(), words.begin(), words.end());
  return out;
}

uint32_t SpirvWriter::f32Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

uint32_t SpirvWriter::f16Bits(double value) {
  // SPIRV-Tools reads f16 text as an f32 and narrows it toward zero
  // (HexFloat's castTo with round_direction::kToZero), not to nearest.
  uint32_t bits = f32Bits(float(value));
  uint32_t sign = (bits >> 16) & 0x8000u;
  int exponent = int((bits >> 23) & 0xffu) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xffu) == 0xffu) // inf, NaN
    return sign | 0x7c00u | (mantissa ? 0x200u : 0u);
  if (exponent >= 31) // beyond the largest finite half, toward zero
    return sign | 0x7bffu;
  if (exponent <= 0) { // subnormal or zero
    if (exponent < -10)
      return sign;
    return sign | ((mantissa | 0x800000u) >> (14 - exponent));
  }
  return sign | (uint32_t(exponent) << 10) | (mantissa >> 13);
}
