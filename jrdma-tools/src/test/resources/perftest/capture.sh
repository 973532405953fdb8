#!/bin/bash
# Captures the perftest outputs kept in this directory. Runs INSIDE the interop guest
# (/work/shared/interop/rig.sh, Linux 6.1.0-57, Debian perftest 4.5-0.20 "Version: 6.06"),
# server and client on the same guest over 10.0.2.15:
#   rig.sh run --share DIR --timeout 280 -- 'DEV=siw0 bash /mnt/host/capture.sh'
#   rig.sh run --share DIR --links rxe0:rxe:eth0 --timeout 280 -- 'DEV=rxe0 bash /mnt/host/capture.sh'
# Outputs land in DIR/out/NAME.{server,client}.txt; they were renamed DEVICE-TOOL-FLAGS.SIDE.txt here.
O=/mnt/host/out; mkdir -p $O
pair() {
  name=$1; sargs=$2; cargs=$3
  timeout 60 $sargs > $O/$name.server.txt 2>&1 &
  sp=$!
  sleep 1.5
  timeout 60 $cargs > $O/$name.client.txt 2>&1
  echo "client rc=$?" >> $O/$name.rc
  wait $sp; echo "server rc=$?" >> $O/$name.rc
}
D=${DEV:-siw0}
A=10.0.2.15
if [ "$D" = rxe0 ]; then
  # Ethernet (socket) exchange, no -R: the address lines carry RKey/VAddr (and OUT for READ).
  pair write_bw_eth "ib_write_bw -d $D -n 200 -x 1" "ib_write_bw -d $D -n 200 -x 1 $A"
  pair write_lat_eth "ib_write_lat -d $D -n 1000 -x 1" "ib_write_lat -d $D -n 1000 -x 1 $A"
  pair read_bw_eth "ib_read_bw -d $D -n 200 -x 1" "ib_read_bw -d $D -n 200 -x 1 $A"
  pair read_lat_eth "ib_read_lat -d $D -n 1000 -x 1" "ib_read_lat -d $D -n 1000 -x 1 $A"
  pair send_lat_eth "ib_send_lat -d $D -n 1000 -x 1" "ib_send_lat -d $D -n 1000 -x 1 $A"
else
  pair write_bw_R "ib_write_bw -d $D -R -n 200" "ib_write_bw -d $D -R -n 200 $A"
  pair write_bw_a_gbits "ib_write_bw -d $D -R -a -n 20 --report_gbits" "ib_write_bw -d $D -R -a -n 20 --report_gbits $A"
  pair write_bw_a "ib_write_bw -d $D -R -a -n 20" "ib_write_bw -d $D -R -a -n 20 $A"
  pair write_bw_D "ib_write_bw -d $D -R -D 3 --margin 1" "ib_write_bw -d $D -R -D 3 --margin 1 $A"
  pair send_bw_gbits "ib_send_bw -d $D -R -n 200 --report_gbits" "ib_send_bw -d $D -R -n 200 --report_gbits $A"
  pair write_lat "ib_write_lat -d $D -R -n 1000" "ib_write_lat -d $D -R -n 1000 $A"
  pair send_lat "ib_send_lat -d $D -R -n 1000" "ib_send_lat -d $D -R -n 1000 $A"
  pair read_lat "ib_read_lat -d $D -R -n 1000" "ib_read_lat -d $D -R -n 1000 $A"
  pair write_lat_a "ib_write_lat -d $D -R -a -n 100" "ib_write_lat -d $D -R -a -n 100 $A"
  pair write_lat_D "ib_write_lat -d $D -R -D 3 --margin 1" "ib_write_lat -d $D -R -D 3 --margin 1 $A"
fi
