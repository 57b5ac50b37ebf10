#!/usr/bin/env python3
"""Prints which file of a crate's src/ uses which (`crate::` and `super::` paths, and `mod`
declarations), and exits non-zero when files import each other in a circle.

    scripts/import-graph.py crates/pep508/src
"""
import re,os,sys
root=sys.argv[1]
files={}
for d,_,fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p=os.path.relpath(os.path.join(d,f),root)
            files[p]=open(os.path.join(d,f)).read()
def modfile(path):  # path: list of module names
    for cand in ['/'.join(path)+'.rs','/'.join(path)+'/mod.rs']:
        if cand in files: return cand
    return None
def modpath(f):
    p=f[:-3].split('/')
    if p[-1]=='mod': p=p[:-1]
    if p==['lib']: p=[]
    return p
edges={f:set() for f in files}
for f,src in files.items():
    mp=modpath(f)
    # strip comments
    code='\n'.join(l.split('//')[0] for l in src.split('\n'))
    for m in re.finditer(r'\b(crate|super)((?:::[a-z_0-9]+)+)',code):
        parts=m.group(2).strip(':').split('::')
        base=[] if m.group(1)=='crate' else (mp[:-1] if not f.endswith('mod.rs') else mp[:-1])
        if m.group(1)=='super': base=mp[:-1]
        best=None
        for k in range(len(parts),0,-1):
            t=modfile(base+parts[:k])
            if t: best=t;break
        if best and best!=f: edges[f].add(best)
    for m in re.finditer(r'^\s*(?:pub(?:\(crate\))?\s+)?mod\s+([a-z_0-9]+)\s*;',code,re.M):
        t=modfile(mp+[m.group(1)])
        if t and f!='lib.rs': edges[f].add(t)
# tarjan
idx={};low={};st=[];on=set();sccs=[];c=[0]
def sc(v):
    idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        sccs.append(comp)
for v in sorted(files):
    if v not in idx: sc(v)
for f in sorted(files):
    print(f'{f:24} -> {" ".join(sorted(x[:-3] for x in edges[f]))}')
cyc=[s for s in sccs if len(s)>1]
print('CYCLES:',cyc if cyc else 'none')
sys.exit(1 if cyc else 0)
