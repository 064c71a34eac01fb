exec(open('sim3.py').read().split("best=None")[0])
F,b=8.25,2.3625
for d in (0.1,0.25,0.5,1.0):
    js=jobs(ms[d]); o,c=last(js,256,1,1.0)
    g=sorted(js,reverse=True)
    print(d,'tree',round(sc(js,F,b),1),'o256',round(sc(o,F,b,c),1),'F/2 o256',round(sc(o,F/2,b,c),1),'F/2 global LPT',round(sc(g,F/2,b),1))
