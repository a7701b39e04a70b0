import re,os,glob,json
D='/work/main/traces/go/pacer'
pat=re.compile(r'^gc (\d+) @.*?, (\d+)->(\d+)->(\d+) MB, (\d+) MB goal')
def parse(f): return [m for m in (pat.match(l) for l in open(f)) if m]
def peakgoal(f): return max(int(m[5]) for m in parse(f))
runs={}
for l in open(D+'/runs.tsv').read().splitlines()[1:]:
    c=l.split('\t'); runs[c[0]]=c
def split(name): return 'holdout' if sum(name.encode())%3==0 else 'tune'
def capped(name):
    so=D+'/'+name[:-4]+'.stdout.txt'
    return os.path.exists(so) and 'capped=true' in open(so).read()
def limiter(name):
    mj=D+'/'+name[:-4]+'.metrics.json'
    if not os.path.exists(mj): return None
    return json.load(open(mj))['extra_metrics'].get('/gc/limiter/last-enabled:gc-cycle')
rows=[]
extra={
 'gorun_graph_cold.log':['cold GOCACHE: go command (first 19 gc lines) + 82 compile/link processes (each block headed by a "# pkg" line from cmd/go) + gcwork itself (last 5 gc lines); gc numbering restarts per process; GOGC=100 is inherited by every process and stops cmd/compile from boosting its starting heap; gcwork default graph sizes (~300 MB live), not the sweep flags'],
 'gorun_graph_warm.log':['warm GOCACHE: go command (gc 1-9) + "# gcwork" compile (gc 1-4) + "# gcwork" link (gc 1-3) + gcwork itself (gc 1-5, no header of its own: split on the number restart); gcwork default graph sizes (~300 MB live)'],
 'setgc_100to400.log':['setgcpercent program (128-B objects, 32 MiB live + 4 MiB pool); SetGCPercent(400) right after cycle 29 completed (stdout): cycle 30 is the first goal paced at 400 (gc 30 goal 257 = 5 x h2 51 of gc 29)'],
 'setgc_200to50.log':['setgcpercent program (128-B objects, 32 MiB live + 4 MiB pool); SetGCPercent(50) right after cycle 15 completed (stdout): cycle 16 is the first goal paced at 50 (gc 16 goal 80 = 1.5 x h2 53 of gc 15)'],
 'floor_tree_gogc100.log':['goal 4 MB in 161 of 163 cycles (5 MB in 2); h2 0-2 MB'],
 'floor_tree_gogc25.log':['goal 1 MB in all 223 cycles; h2 prints 0 MB (below 1 MiB); whole run 1 s'],
 'floor_tree_gogc400.log':['goal 16 MB in 120 of 136 cycles; the rest 17-35 MB when h2 reached 4-6 MB (above floor/5)'],
 'floor_scalar_gogc400.log':['-live-mb 2: goal 16 MB (floor) in 106 of 178 cycles; floating garbage lifts h2 to 3-13 MB in the rest, goal 17-67 MB = GOGC-paced'],
 'off_graph_lim64.log':['limit-paced goals not flat: 25-54 MB oscillating while h2 stays 16-20 MB (the limit goal subtracts non-heap and unscavenged memory)'],
 'off_pointer_lim128.log':['goal pinned at 115 MB (112 in cycle 1) for a 128 MiB limit'],
 'off_scalar_lim256.log':['goal 223-225 MB in most cycles (178 min) for a 256 MiB limit'],
 'limit_tree_gogc100_lim30tight.log':['tight: goal pinned to the marked heap, goal_N = h2_{N-1} +-1 MB in 30 of 44 cycles (the stretch/long-tree build phase at the start is not)'],
 'limit_pointer_gogc100_lim40tight.log':['tight: goal pinned, goal_N = h2_{N-1} +-1 MB in 20 of 23 cycles (goals 29-34 MB); only ~3 cycles/s because pointer-dense marking is slow and CPU-limited (last cycle 3 s of mark)'],
 'limit_scalar_gogc100_lim76tight.log':['tight: goal pinned, goal_N = h2_{N-1} +-1 MB in 45 of 50 cycles (goals 63-70 MB)'],
 'limit_tree_gogc100_lim256.log':['CPU limiter at cycle 5 is not due to the limit (it does not bind): GC CPU saturation under load'],
}
setgc={'setgc_100to400.log':('100>400@cycle29','4>16'),'setgc_200to50.log':('200>50@cycle15','8>2')}
for f in sorted(glob.glob(D+'/*.log')):
    n=os.path.basename(f); parts=n[:-4].split('_'); kind=parts[0]
    kindname={'sweep':'sweep','off':'off','limit':'limit','floor':'floor','setgc':'setgcpercent','gorun':'gorun','loaded':'loaded'}[kind]
    r=runs[n]; cmd=r[6]; notes=[]
    g=re.search(r'GOGC=(\S+)',cmd)[1]; lim=re.search(r'GOMEMLIMIT=(\d+)MiB',cmd)
    lim=int(lim[1]) if lim else None
    mode=re.search(r'-mode (\S+)',cmd); mode=mode[1] if mode else 'setgcpercent'
    gogc=g; floor='-' if g=='off' else '%g'%(4*int(g)/100)
    binds='-'
    if kind=='setgc': gogc,floor=setgc[n]
    if lim is not None:
        if g=='off': binds='yes'
        else:
            twin='sweep_%s_gogc%s.log'%(mode,g); pk=peakgoal(D+'/'+twin)
            binds='yes' if pk>lim*1.05 else ('no' if pk<0.8*lim else 'unknown')
            notes.append('twin %s (peak goal %d MB = %.0f%% of limit)'%(twin,pk,100*pk/lim))
    cyc=len(parse(f))
    if capped(n):
        ms=re.search(r'-maxsec (\S+)',cmd)[1]; notes.append('cut by -maxsec %s'%ms)
    if kind=='sweep' and cyc<30: notes.append('only %d cycles (<30: high GOGC on a slow loaded machine within the 18 s budget)'%cyc)
    lb,la=float(r[3]),float(r[4])
    if max(lb,la)>=6 and kind!='loaded': notes.append('background load1 %.1f-%.1f from other jobs (the sweep ran at ~4)'%(lb,la))
    if kind=='loaded': notes.append('two extra busy loops (one per core) on top of background load1 %.1f-%.1f; twin %s'%(lb,la,'sweep_graph_gogc%s.log'%g))
    le=limiter(n)
    if le: notes.append('GC CPU limiter last enabled in cycle %d'%le)
    notes+=extra.get(n,[])
    rows.append([n,mode,gogc,str(lim) if lim else '-',binds,floor,kindname,split(n),notes])
import pickle; pickle.dump(rows,open('/tmp/rows.pkl','wb'))
with open(D+'/labels.tsv','w') as o:
    o.write('file\tmode\tgogc\tlimit_mib\tlimit_binds\tfloor_mb\tkind\tsplit\tnotes\n')
    for r in rows: o.write('\t'.join(r[:8])+'\t'+('; '.join(r[8]) or '-')+'\n')
