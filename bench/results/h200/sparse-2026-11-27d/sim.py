import random, heapq
B,H,NB,SM=4,16,16,132
def masks(d,seed=19):
    r=random.Random(seed); return [[[ [r.random()<d for _ in range(NB)] for _ in range(NB)] for _ in range(H)] for _ in range(B)]
def jobs(m, order="id"):
    js=[]
    for b in range(B):
        for h in range(H):
            cnt=[2*sum(m[b][h][q]) for q in range(NB)]
            qs=list(range(NB))
            if order=="head": qs=sorted(qs,key=lambda q:-cnt[q])
            js += [cnt[q] for q in qs]
    if order=="global": js=sorted(js,reverse=True)
    return js
def sched(js,F,b,per=1,slots=SM):
    # per: query blocks per workgroup (sequential)
    groups=[js[i:i+per] for i in range(0,len(js),per)]
    t=[0.0]*slots; heapq.heapify(t)
    for g in groups:
        s=heapq.heappop(t); heapq.heappush(t, s+F+sum(b*n+ (F2 if k>0 else 0) for k,n in enumerate(g)))
    return max(t)
F2=0
import sys
ms={d:masks(d) for d in (0.1,0.25,0.5,1.0)}
obs={0.1:145.0,0.25:233.7,0.5:380.,1.0:673.2}
best=None
for F in [x*0.25 for x in range(0,80)]:
    b=(673.2/8-F)/32
    err=sum((sched(jobs(ms[d]),F,b)-obs[d])**2 for d in obs)
    if best is None or err<best[0]: best=(err,F,b)
print(best)
err,F,b=best
for d in obs: print(d, obs[d], round(sched(jobs(ms[d]),F,b),1), 'head',round(sched(jobs(ms[d],'head'),F,b),1),'global',round(sched(jobs(ms[d],'global'),F,b),1))
for per in (2,4):
  for FF in (F, F*0.5):
    F2=FF-F  # second block costs F2 extra relative
    print('per',per,'F2',FF, [round(sched(jobs(ms[d]),F,b,per),1) for d in obs])
