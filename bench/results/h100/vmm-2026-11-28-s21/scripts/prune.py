#!/usr/bin/env python3
"""Keeps in dev/<family> only the check cases the vmm device call runs (the
cooperative ones of coop_cases.json matching the family's selection):
cases.json pruned, other art/ and chk/ directories removed."""
import json, os, re, shutil, sys
SEL = {
    "sparse": r"^chk_(causal|stage_causal_gqa|local|bf16_causal|density_0|density_75|gqa_4_1|gqa_dv|partial_blocks|stage_density_25|causal_d64_128)$",
    "nsa": r"^chk_.*_(coop|lanes)$|^chk_heuristic",
    "mla": r"^chk",
    "linear": r"^chk_(coop2_f16|coop2_bf16|coop2_varlen_f16|coop2_strong_bf16|coop1_f16|coop1_varlen_f16|coop1_gamma_bf16|inorder_small_f16|inorder_small_bf16|inorder_varlen_f16|inorder_states_bf16|inorder_heuristic_bf16|inorder2_small_f16|inorder2_small_bf16|inorder2_varlen_all_f16|inorder2_gqa_bf16|split_f16|split_bf16|split_states_f16|split_gqa_bf16|split_c16_v16_bf16|gla_long)$",
    "delta": r"^chk_(coop2_f16|coop_f16|coop2_bf16|coop_bf16|gdn_f16_k256|gdn_bf16_k128|coop2_k32_f16|coop2_c32_f16|coop2_none_f16|coop_none_f16|coop2_init_varlen_f16|coop_varlen_f16)$",
    "ssm": r"^chk_ssd",
    "moe": r"^chk_(gmm|tgmm|bf16|gmm_i8|gmmT_off_acc|gmm_two_stages|tgmm_bf16|bf16T_off_acc|gmm_out_tile_1|gmmT_w8_256)$",
    "attention_grad": r"^chk",
    "ragged": r"^chk-(small|prefill|prefill-bf16|odd|gqa5-cap|window-sinks)$",
}
coop = json.load(open("coop_cases.json"))
total = 0
for fam, pat in SEL.items():
    d = os.path.join("dev", fam)
    cases = json.load(open(os.path.join(d, "cases.json")))
    keep = {n: s for n, s in cases.items() if re.search(pat, n) and n in coop.get(fam, [])}
    json.dump(keep, open(os.path.join(d, "cases.json"), "w"), indent=1)
    for sub in ("art", "chk"):
        p = os.path.join(d, sub)
        if not os.path.isdir(p): continue
        for e in os.listdir(p):
            name = e[:-5] if e.endswith(".mlir") else e
            if name not in keep:
                q = os.path.join(p, e)
                shutil.rmtree(q) if os.path.isdir(q) else os.remove(q)
    total += len(keep)
    print(fam, len(keep), sorted(keep))
print("total", total)
