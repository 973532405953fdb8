set +e
kill_all() { for p in $(pidof rping ucmatose udaddy 2>/dev/null); do kill $p 2>/dev/null; done; sleep 0.5; }
echo "== mapped listener: cm_id table"
(timeout 20 rping -s -a ::ffff:10.0.4.15 -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; rdma res show cm_id; timeout 10 rping -c -a 10.0.4.15 -C 1 > /dev/null 2>&1 & sleep 1; rdma res show cm_id; wait; kill_all
echo "== v6 wildcard listener, v4 client: cm_id table during"
(timeout 20 rping -s -a :: -C 3 -v > /tmp/s.log 2>&1 &); sleep 1.5; (timeout 10 rping -c -a 10.0.4.15 -C 3 -D 500 > /dev/null 2>&1 &); sleep 0.8; rdma res show cm_id; sleep 3; kill_all
echo "== bindv6only=1: v6 wildcard listener, v4 client"
sysctl -w net.ipv6.bindv6only=1; (timeout 20 rping -s -a :: -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a 10.0.4.15 -C 1 -v 2>&1 | tail -2; echo rc=$?; timeout 10 rping -c -a fd00:4::15 -C 1 -v 2>&1 | tail -1; echo v6rc=$?; kill_all; sysctl -w net.ipv6.bindv6only=0
echo "== v4 wildcard listener, v6 client"
(timeout 20 rping -s -a 0.0.0.0 -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a fd00:4::15 -C 1 -v 2>&1 | tail -2; echo rc=$?; kill_all
echo "== link-local"; (timeout 20 rping -s -a fe80::5054:ff:fe12:3457%eth1 -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a fe80::5054:ff:fe12:3457%eth1 -C 1 -v 2>&1 | tail -2; echo rc=$?; cat /tmp/s.log | tail -2; kill_all
echo "== link-local no scope"; timeout 10 rping -c -a fe80::5054:ff:fe12:3457 -C 1 -v 2>&1 | tail -2; echo rc=$?
echo "== link-local bind no scope"; timeout 5 rping -s -a fe80::5054:ff:fe12:3457 -C 1 -v 2>&1 | tail -2; echo rc=$?
echo "== mckey v6 verbose"; timeout 10 mckey -m ff0e::1234 -b fd00:4::15 -c 1 -s 2>&1 | tail -4
echo "== udaddy -b :: v4 and v6 clients"; (timeout 20 udaddy -b :: > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 udaddy -s 10.0.4.15 -c 1 2>&1 | tail -2; timeout 10 udaddy -s fd00:4::15 -c 1 2>&1 | tail -2; kill_all; tail -3 /tmp/s.log
echo "== ib_write_bw -R over ipv6 (perftest 4.5)"; (timeout 20 ib_write_bw -R -d rxe1 > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 ib_write_bw -R -d rxe1 fd00:4::15 2>&1 | tail -4; echo rc=$?; kill_all; for p in $(pidof ib_write_bw); do kill $p; done
echo "== ib_write_bw --ipv6 gid over v4 control"; (timeout 30 ib_write_bw -d rxe1 --ipv6 -n 200 > /tmp/s.log 2>&1 &); sleep 1.5; timeout 25 ib_write_bw -d rxe1 --ipv6 -n 200 10.0.4.15 2>&1 | grep -i "gid\|bytes\|65536" | head -8; echo rc=$?; sleep 1; grep -i gid /tmp/s.log | head -3
