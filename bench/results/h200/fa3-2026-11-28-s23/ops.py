import sys, struct
for f in sys.argv[1:]:
    d = open(f, 'rb').read(); w = struct.unpack('<%dI' % (len(d)//4), d)
    i = 5; c = {}
    while i < len(w):
        n, op = w[i] >> 16, w[i] & 0xffff
        c[op] = c.get(op, 0) + 1
        if op == 224: c.setdefault('bar', []).append(w[i+1])
        i += max(n, 1)
    bars = c.get('bar', [])
    print(f.split('/v/')[-1][:40], 'barriers', len(bars), 'subgroup-scope', sum(1 for x in bars if x != 2), 'umax', c.get(356, 0), 'shufxor', c.get(348, 0), 'words', len(w))
