set -x
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
lscpu | grep -E "Model name|L1d|L2|L3|^CPU\(s\)|NUMA"
cd .cpu17
for round in 1 2; do
python3 paged.py --artifacts . --threads 1,2,8 --runs 30 > $OUT/main-hp-$round.log 2>&1
EJK_CPU_HUGE_PAGES=0 python3 paged.py --artifacts . --threads 1,2,8 --runs 30 > $OUT/main-nohp-$round.log 2>&1
for v in var-*; do python3 $v/paged.py --artifacts $v --threads 1,2 --runs 30 > $OUT/$v-$round.log 2>&1; done
done
grep -i huge /proc/meminfo
cd $OUT && for f in *.log; do echo "== $f"; grep -E "^[0-9]+ decode" $f; done
