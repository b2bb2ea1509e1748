#!/bin/bash
# Two "hosts" on this machine: network namespaces joined by a veth pair (10.231.77.1 and .2, the
# project's own test addresses, reachable only inside these namespaces), each with its own host
# name. mpirun runs in the first and starts the second's instances through a launcher that enters
# its namespace (in place of ssh), so the instances talk over TCP between the "hosts" as they would
# across machines. 4 instances, 2 per host, must train the same weights as one process.
# Usage: two_hosts.sh IPUTRAIN MPIEXEC
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"  # ip lives in /usr/sbin, which a minimal PATH may leave out
bin=$1 mpiexec=$2
work=$(mktemp -d)
ns0=iput_h0_$$ ns1=iput_h1_$$ v0=iptv0_$$ v1=iptv1_$$
cleanup() {
  ip netns del "$ns0" 2>/dev/null || true
  ip netns del "$ns1" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns0"
ip netns add "$ns1"
ip link add "$v0" type veth peer name "$v1"
ip link set "$v0" netns "$ns0"
ip link set "$v1" netns "$ns1"
ip -n "$ns0" addr add 10.231.77.1/24 dev "$v0"
ip -n "$ns1" addr add 10.231.77.2/24 dev "$v1"
for ns in "$ns0" "$ns1"; do ip -n "$ns" link set lo up; done
ip -n "$ns0" link set "$v0" up
ip -n "$ns1" link set "$v1" up

# Open MPI calls its remote launcher as "AGENT [ssh options] HOST COMMAND...".
cat > "$work/agent.sh" <<AGENT
#!/bin/bash
while [[ \$1 == -* ]]; do shift; done
host=\$1; shift
case \$host in 10.231.77.2) ns=$ns1 name=host1 ;; *) ns=$ns0 name=host0 ;; esac
exec ip netns exec \$ns unshare --uts /bin/sh -c "hostname \$name; \$*"
AGENT
chmod +x "$work/agent.sh"

cat > "$work/m.ipu" <<'MODEL'
import nn

model mlp(batch: int = 4, hidden: int = 24) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage features {
    h = nn.dense(flatten(image), hidden, activation = relu)
  }
  stage classifier {
    logits = nn.dense(h, 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
MODEL
cat > "$work/c.toml" <<'CONFIG'
[ipu]
auto_select_ipus = 8
[pipeline]
stages = ["features", "classifier"]
device_mapping = [0, 1]
gradient_accumulation_count = 4
[optimizer]
type = "adam"
learning_rate = 0.01
[data]
train = "synthetic:samples=1024,classes=10"
batch_size = 4
[training]
steps = 6
seed = 3
CONFIG

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$bin" train "$work/m.ipu" "$work/c.toml" -q --save "$work/one.safetensors"
timeout 120 ip netns exec "$ns0" unshare --uts /bin/sh -c "hostname host0; $mpiexec \
  --mca plm_rsh_agent $work/agent.sh -H 10.231.77.1:2,10.231.77.2:2 -n 4 \
  --mca oob_tcp_if_include 10.231.77.0/24 --mca btl tcp,self --mca btl_tcp_if_include 10.231.77.0/24 \
  $bin train $work/m.ipu $work/c.toml -q --save $work/hosts.safetensors"
if cmp "$work/one.safetensors" "$work/hosts.safetensors"; then
  echo "two hosts x 2 instances: the same weights as one process, bit for bit"
else
  echo "two hosts x 2 instances: the weights differ from one process's" >&2
  exit 1
fi
