import sys, struct
def cnt(f):
    d = open(f, 'rb').read(); w = struct.unpack('<%dI' % (len(d)//4), d)
    i = 5; c = {}
    while i < len(w):
        n, op = w[i] >> 16, w[i] & 0xffff
        c[op] = c.get(op, 0) + 1; i += max(n, 1)
    return c
a, b = cnt(sys.argv[1]), cnt(sys.argv[2])
print({k: (a.get(k, 0), b.get(k, 0)) for k in sorted(set(a) | set(b)) if a.get(k, 0) != b.get(k, 0)})
