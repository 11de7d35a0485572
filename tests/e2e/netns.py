"""A worker on a network of its own: a Linux network namespace whose link can be cut.

The namespace reaches the host through a veth pair (two host addresses, one namespace address).
Services that listen on 127.0.0.1 only (the machine's PostgreSQL) are reached through a small
TCP relay on the host's end of the link. Cutting the link points each end's neighbour entry
for the other at a MAC address nobody has: frames still leave, and are silently dropped, so
the worker's open connections hang as behind a failed switch (no "no route to host", no reset)
and resume by TCP retransmission once the entries are restored. (Setting the link down would
refuse, not drop: the kernel answers EHOSTUNREACH at once.) Needs root (``ip netns``).
"""

from __future__ import annotations

import random
import select
import socket
import subprocess
import threading
import uuid
from contextlib import contextmanager

# A locally administered MAC address that no interface here has: frames sent to it are dropped.
NOBODY = "02:00:00:de:ad:00"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Relay:
    """Forwards TCP connections made to ``listen`` on to ``target``, in daemon threads."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.target = target
        self.server = socket.create_server(listen)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self.accept_forever, daemon=True).start()

    def accept_forever(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self.pipe, args=(client,), daemon=True).start()

    def pipe(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.target) as upstream:
            ends = {client: upstream, upstream: client}
            while True:
                readable, _, _ = select.select(list(ends), [], [], 1)
                for end in readable:
                    data = end.recv(65536)
                    if not data:
                        return
                    ends[end].sendall(data)

    def close(self) -> None:
        self.server.close()


class Namespace:
    """A network namespace linked to the host by a veth pair, which ``cut`` and ``restore``."""

    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:6]
        self.name = f"wbt-{tag}"
        self.host_link, self.ns_link = f"wbth{tag}", f"wbtn{tag}"
        subnet, block = random.randint(0, 30) * 8, random.randint(1, 250)
        # Two host addresses: one per service whose route ``cut_route_to`` can cut alone.
        self.host_ip, self.ns_ip = (
            f"10.213.{block}.{subnet + 1}",
            f"10.213.{block}.{subnet + 2}",
        )
        self.second_host_ip = f"10.213.{block}.{subnet + 3}"

    def create(self) -> None:
        ip("netns", "add", self.name)
        ip("link", "add", self.host_link, "type", "veth", "peer", "name", self.ns_link)
        ip("link", "set", self.ns_link, "netns", self.name)
        ip("addr", "add", f"{self.host_ip}/29", "dev", self.host_link)
        ip("addr", "add", f"{self.second_host_ip}/29", "dev", self.host_link)
        ip("link", "set", self.host_link, "up")
        self.in_ns("ip", "addr", "add", f"{self.ns_ip}/29", "dev", self.ns_link)
        self.in_ns("ip", "link", "set", self.ns_link, "up")
        self.in_ns("ip", "link", "set", "lo", "up")

    def in_ns(self, *command: str) -> None:
        subprocess.run(
            ["ip", "netns", "exec", self.name, *command], check=True, capture_output=True
        )

    def command(self, args: list[str]) -> list[str]:
        """``args`` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *args]

    def cut(self) -> None:
        ip(
            "neigh",
            "replace",
            self.ns_ip,
            "lladdr",
            NOBODY,
            "dev",
            self.host_link,
            "nud",
            "permanent",
        )
        self.in_ns("ip", "neigh", "replace", self.host_ip, "lladdr", NOBODY, "dev", self.ns_link,
                   "nud", "permanent")  # fmt: skip

    def restore(self) -> None:
        ip("neigh", "del", self.ns_ip, "dev", self.host_link)
        self.in_ns("ip", "neigh", "del", self.host_ip, "dev", self.ns_link)

    def cut_route_to(self, host_ip: str) -> None:
        """Drop what the namespace sends to ``host_ip`` only (its other links stay up)."""
        self.in_ns("ip", "neigh", "replace", host_ip, "lladdr", NOBODY, "dev", self.ns_link,
                   "nud", "permanent")  # fmt: skip

    def restore_route_to(self, host_ip: str) -> None:
        self.in_ns("ip", "neigh", "del", host_ip, "dev", self.ns_link)

    def delete(self) -> None:
        subprocess.run(["ip", "link", "del", self.host_link], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)


@contextmanager
def namespace_with_relay(target: tuple[str, int], second: tuple[str, int] | None = None):
    """A new namespace and a relay on its host end to ``target``; yields (namespace, port).

    With ``second``, a relay to it on the second host address too: yields (namespace, port,
    second port)."""
    namespace = Namespace()
    namespace.create()
    relays = [Relay((namespace.host_ip, 0), target)]
    if second is not None:
        relays.append(Relay((namespace.second_host_ip, 0), second))
    try:
        yield (namespace, *(relay.port for relay in relays))
    finally:
        for relay in relays:
            relay.close()
        namespace.delete()
