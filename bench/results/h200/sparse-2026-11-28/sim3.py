exec(open('sim.py').read().split("F2=0")[0])
# Refit to call 1 (2026-11-28, tree): 10/25/50/100 %.
ms={d:masks(d) for d in (0.1,0.25,0.5,1.0)}
obs={0.1:144.9,0.25:236.3,0.5:377.4,1.0:670.8}
def last(js,G,L,rank=0.0):
    # last L groups of G jobs each sorted (groups counted from the grid's start)
    n=len(js); ng=(n+G-1)//G; out=list(js); cost=[0.0]*n
    for g in range(max(0,ng-L),ng):
        out[g*G:(g+1)*G]=sorted(js[g*G:(g+1)*G],reverse=True)
        for i in range(g*G,min(n,(g+1)*G)): cost[i]=rank*G/128
    return out,cost
def sc(js,F,b,cost=None):
    t=[0.0]*SM
    for k,n in enumerate(js):
        s=heapq.heappop(t); heapq.heappush(t,s+F+b*n+(cost[k] if cost else 0))
    return max(t)
best=None
for F in [x*0.25 for x in range(0,80)]:
    b=(670.8/8-F)/32
    err=sum((sc(jobs(ms[d]),F,b)-obs[d])**2 for d in obs if d<1)
    if best is None or err<best[0]: best=(err,F,b)
print('fit',best)
_,F,b=best
R=1.0 # ranking cost of a 128-job group, us a workgroup
for seed in (19,1,2,3):
  for d in (0.1,0.25,0.5,1.0):
    m=masks(d,seed); js=jobs(m)
    row=[round(sc(js,F,b),1)]
    for G,L in ((128,1),(128,2),(128,3),(256,1),(256,2),(512,1),(1024,1)):
        o,c=last(js,G,L,R); row.append(('%d,%d'%(G,L),round(sc(o,F,b,c),1)))
    print(seed,d,row)
