"""What users see inside a GPU pod. nvidia-smi run in it (`kubectl exec POD -- nvidia-smi`)
against what the pod asks for (checks/k8s_resources.py, k8s-pod-extra-gpus): a pod that sees
more GPUs than its nvidia.com/gpu got them outside the scheduler (NVIDIA_VISIBLE_DEVICES=all
honoured by the runtime, a privileged container). And its /dev/shm as `df` or `mount` show it
(pasted/host_tools.py into shm-size)."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_LIMIT = """\
$ kubectl describe pod one-gpu | grep -A3 Limits
    Limits:
      nvidia.com/gpu:  {n}
    Requests:
      nvidia.com/gpu:  {n}
"""


def _list(count: int) -> str:
    return "".join(
        f"GPU {i}: NVIDIA A100-SXM4-80GB (UUID: GPU-{i}1111111-2222-3333-4444-55555555555{i})\n"
        for i in range(count)
    )


def _seen(read: Read, matrix: Matrix, text: str) -> list[tuple[Severity, str, str, str]]:
    return [
        (f.severity, f.title, f.detail, f.fix)
        for f in findings_of(read, matrix, text)
        if f.code == "k8s-pod-extra-gpus"
    ]


def test_a_pod_asking_one_gpu_that_lists_eight_is_warned_with_both_counts(
    read: Read, matrix: Matrix
) -> None:
    text = _LIMIT.format(n=1) + "$ kubectl exec -it one-gpu -- nvidia-smi -L\n" + _list(8)
    assert read(text).platform.k8s_exec_gpus == 8
    [(severity, title, detail, fix)] = _seen(read, matrix, text)
    assert severity == Severity.WARN
    assert "asks for 1 nvidia.com/gpu" in title
    assert "lists 8 GPUs" in title
    assert "NVIDIA_VISIBLE_DEVICES" in detail
    assert "accept-nvidia-visible-devices-envvar-when-unprivileged = false" in fix


def test_the_describe_environment_and_the_csv_and_table_forms(read: Read, matrix: Matrix) -> None:
    env = "    Environment:\n      NVIDIA_VISIBLE_DEVICES:  all\n"
    csv = (
        "$ kubectl exec -n ml -c server llm-0 -- nvidia-smi --query-gpu=index,name "
        "--format=csv\nindex, name\n0, NVIDIA A10G\n1, NVIDIA A10G\n2, NVIDIA A10G\n"
    )
    facts = read(_LIMIT.format(n=2) + env + csv)
    assert facts.platform.k8s_exec_gpus == 3
    assert facts.platform.nvidia_visible_devices == "all"
    [(severity, _, detail, _)] = _seen(read, matrix, _LIMIT.format(n=2) + env + csv)
    assert severity == Severity.WARN
    assert "the report shows NVIDIA_VISIBLE_DEVICES=all" in detail
    row = (
        "|   {i}  NVIDIA L4                      On  |   00000000:0{i}:00.0 Off |"
        "                    0 |\n"
    )
    table = "$ kubectl exec one-gpu -- nvidia-smi\n" + "".join(row.format(i=i) for i in range(2))
    assert read(_LIMIT.format(n=1) + table).platform.k8s_exec_gpus == 2


def test_a_pod_that_asks_for_none_and_sees_gpus_is_warned(read: Read, matrix: Matrix) -> None:
    text = (
        "$ kubectl get pod cpu-job -o yaml | grep -A4 resources\n    resources:\n"
        '      limits:\n        cpu: "4"\n        memory: 8Gi\n'
        "$ kubectl exec cpu-job -- nvidia-smi -L\n" + _list(2)
    )
    [(severity, title, _, _)] = _seen(read, matrix, text)
    assert severity == Severity.WARN
    assert "asks for 0 nvidia.com/gpu" in title


def test_near_misses_stay_clean(read: Read, matrix: Matrix) -> None:
    # the pod sees what it asks for
    same = _LIMIT.format(n=2) + "$ kubectl exec one-gpu -- nvidia-smi -L\n" + _list(2)
    assert _seen(read, matrix, same)[0][0] == Severity.OK
    assert warn_or_error(findings_of(read, matrix, same)) == []
    # nvidia-smi on the node, not in the pod: every GPU of the node is expected
    node = _LIMIT.format(n=1) + "$ nvidia-smi -L\n" + _list(8)
    assert read(node).platform.k8s_exec_gpus is None
    assert warn_or_error(findings_of(read, matrix, node)) == []
    # the output of the exec ends at the next command
    after = same + "$ ssh node nvidia-smi -L\n" + _list(8)
    assert read(after).platform.k8s_exec_gpus == 2
    # a pod of the NVIDIA stack sees every GPU by design
    stack = (
        _LIMIT.format(n=1)
        + "$ kubectl -n gpu-operator exec nvidia-device-plugin-daemonset-x7k2p -- nvidia-smi -L\n"
        + _list(8)
    )
    assert read(stack).platform.k8s_exec_gpus is None
    # output filtered by grep is not the pod's whole view
    grep = _LIMIT.format(n=1) + "$ kubectl exec one-gpu -- nvidia-smi -L | grep A100\n" + _list(8)
    assert read(grep).platform.k8s_exec_gpus is None


def test_a_pod_asking_for_mig_devices_is_not_compared(read: Read, matrix: Matrix) -> None:
    text = (
        "$ kubectl get pod mig -o yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: mig\n"
        "spec:\n  containers:\n  - name: c\n    image: cuda\n    resources:\n      limits:\n"
        "        nvidia.com/mig-1g.10gb: 1\n        nvidia.com/gpu: 0\n"
        "$ kubectl exec mig -- nvidia-smi -L\n" + _list(2)
    )
    found = _seen(read, matrix, text)
    assert [s for s, *_ in found] == [Severity.NA]


_TWO = "$ kubectl exec w-0 -- nvidia-smi -L\n" + _list(2)


def _shm(read: Read, matrix: Matrix, text: str) -> list[tuple[Severity, str]]:
    return [(f.severity, f.title) for f in findings_of(read, matrix, text) if f.code == "shm-size"]


def test_a_pods_small_dev_shm_from_df_or_mount_is_judged_with_its_size(
    read: Read, matrix: Matrix
) -> None:
    df = (
        "$ kubectl exec w-0 -- df -h /dev/shm\nFilesystem      Size  Used Avail Use% Mounted on\n"
        "shm              64M     0   64M   0% /dev/shm\n"
    )
    assert read(df).multigpu.shm_bytes == 64 * 2**20
    [(severity, title)] = _shm(read, matrix, df + _TWO)
    assert severity == Severity.WARN
    assert "/dev/shm is 64 MiB" in title
    mount = "shm on /dev/shm type tmpfs (rw,nosuid,nodev,noexec,relatime,size=131072k)\n"
    assert read(mount).multigpu.shm_bytes == 128 * 2**20
    proc = "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n"
    assert read(proc).multigpu.shm_bytes == 64 * 2**20
    blocks = "shm                65536       0     65536   0% /dev/shm\n"  # df without -h
    assert read(blocks).multigpu.shm_bytes == 64 * 2**20


def test_a_large_dev_shm_and_near_misses_stay_clean(read: Read, matrix: Matrix) -> None:
    big = "tmpfs            16G     0   16G   0% /dev/shm\n"
    assert read(big).multigpu.shm_bytes == 16 * 2**30
    assert [s for s, _ in _shm(read, matrix, big + _TWO)] == [Severity.OK]
    assert warn_or_error(findings_of(read, matrix, big + _TWO)) == []
    # one GPU: NCCL's shared-memory transport is not used
    assert [s for s, _ in _shm(read, matrix, big.replace("16G", "64M") + _LIMIT.format(n=1))] == [
        Severity.NA
    ]
    # a tmpfs without size= (half the memory) and another mount point say nothing of /dev/shm
    unsized = "tmpfs on /dev/shm type tmpfs (rw,nosuid,nodev)\n" + _TWO
    assert read(unsized).multigpu.shm_bytes is None
    assert read("tmpfs  64M  0  64M  0% /dev/shm/extra\n" + _TWO).multigpu.shm_bytes is None
