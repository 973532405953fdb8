set +e
kill_all() { for p in $(pidof rping ucmatose udaddy mckey 2>/dev/null); do kill $p 2>/dev/null; done; sleep 0.5; }
echo "== mapped bind"; timeout 5 rping -s -a ::ffff:10.0.4.15 -C 1 -v; echo rc=$?
echo "== mapped bind ucmatose"; timeout 5 ucmatose -b ::ffff:10.0.4.15 -c 1; echo rc=$?
echo "== mapped dst ucmatose"; timeout 5 ucmatose -s ::ffff:10.0.4.15 -c 1; echo rc=$?
echo "== link-local no scope ucmatose client"; timeout 10 ucmatose -s fe80::5054:ff:fe12:3457 -c 1; echo rc=$?
echo "== mckey v6"; timeout 10 mckey -m ff0e::1234 -b fd00:4::15 -c 1; echo rc=$?
echo "== mckey v4"; (timeout 10 mckey -m 239.1.2.3 -b 10.0.4.15 -c 1 > /tmp/s.log 2>&1 &); sleep 1; timeout 10 mckey -m 239.1.2.3 -b 10.0.4.15 -c 1 -s; echo rc=$?; kill_all
echo "== udaddy -b :: -c 2"; (timeout 20 udaddy -b :: -c 2 > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 udaddy -s 10.0.4.15 -c 1 2>&1 | tail -1; timeout 10 udaddy -s fd00:4::15 -c 1 2>&1 | tail -1; sleep 1; tail -2 /tmp/s.log; kill_all
echo "== ucmatose -b :: with v6 and v4 client"; (timeout 20 ucmatose -b :: -c 2 > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 ucmatose -s fd00:4::15 -c 1 2>&1 | tail -1; timeout 10 ucmatose -s 10.0.4.15 -c 1 2>&1 | tail -1; sleep 1; tail -2 /tmp/s.log; kill_all
echo "== siw over eth1 ipv6"; rdma link del rxe1; rdma link add siw1 type siw netdev eth1; rdma link
(timeout 20 rping -s -a fd00:4::15 -C 2 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a fd00:4::15 -C 2 -v; echo rc=$?; sleep 0.5; tail -2 /tmp/s.log; kill_all
echo "== siw v6 wildcard, v6 client"; (timeout 20 rping -s -a :: -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a fd00:4::15 -C 1 -v; echo rc=$?; kill_all
echo "== siw v6 wildcard, v4 client (eth1)"; ip addr show eth1 | grep "inet "; (timeout 20 rping -s -a :: -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a 10.0.4.15 -C 1 -v; echo rc=$?; kill_all
echo "== siw bindv6only=1 wildcard, v4 client"; sysctl -w net.ipv6.bindv6only=1; (timeout 20 rping -s -a :: -C 1 -v > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 rping -c -a 10.0.4.15 -C 1 -v; echo rc=$?; kill_all; sysctl -w net.ipv6.bindv6only=0
echo "== siw ucmatose -b :: v4 client"; (timeout 20 ucmatose -b :: -c 1 > /tmp/s.log 2>&1 &); sleep 1.5; timeout 10 ucmatose -s 10.0.4.15 -c 1 2>&1 | tail -3; sleep 0.5; tail -3 /tmp/s.log; kill_all
dmesg | grep -i siw | tail -5
