// Where a server really listens, read from the kernel (/proc/net/tcp and tcp6 on Linux) rather
// than from what the code says, and whether a connection to another address of this machine is
// refused.
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';

export interface ListeningSocket {
  family: 'IPv4' | 'IPv6';
  address: string;
  port: number;
}

function ipv4(hex: string): string {
  // /proc/net/tcp prints the address as a little-endian 32-bit hex number.
  const bytes = hex.match(/../g)?.map((b) => parseInt(b, 16)) ?? [];
  return bytes.reverse().join('.');
}

function ipv6(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const word = hex.slice(i, i + 8).match(/../g)?.reverse().join('') ?? '';
    words.push(word.slice(0, 4), word.slice(4));
  }
  return words.map((w) => w.replace(/^0+(?=.)/, '').toLowerCase()).join(':');
}

/** Every listening TCP socket on `port`, as the kernel reports it; null where /proc is not available. */
export function listeningOn(port: number): ListeningSocket[] | null {
  if (!existsSync('/proc/net/tcp')) return null;
  const found: ListeningSocket[] = [];
  for (const [file, family] of [['/proc/net/tcp', 'IPv4'], ['/proc/net/tcp6', 'IPv6']] as const) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state] = [fields[1], fields[3]];
      if (!local || state !== '0A') continue; // 0A = LISTEN
      const [addr, portHex] = local.split(':') as [string, string];
      if (parseInt(portHex, 16) !== port) continue;
      found.push({ family, address: family === 'IPv4' ? ipv4(addr) : ipv6(addr), port });
    }
  }
  return found;
}

/** A non-loopback IPv4 address of this machine, if it has one. */
export function externalIPv4(): string | undefined {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/** 'refused' when nothing accepts a TCP connection at host:port (within `timeoutMs`), else 'accepted'. */
export function tryConnect(host: string, port: number, timeoutMs = 2_000): Promise<'accepted' | 'refused' | 'timeout'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve('refused');
    });
  });
}
