// A certificate for https://127.0.0.1, made fresh for a test run (openssl, one EC key, valid two
// days), so a "live" profile — which must use https — can point at a test gateway on this machine.
// The app trusts it either through NODE_EXTRA_CA_CERTS (a web-mode child process) or through
// trustingFetch (an in-process core: CoreOptions.gateway.fetch).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Readable } from 'node:stream';
import { tempDir } from './temp-dir';

export interface TestCertificate {
  key: string;
  cert: string;
  /** The certificate as a PEM file (NODE_EXTRA_CA_CERTS). */
  certFile: string;
  cleanup(): void;
}

export function makeTestCertificate(): TestCertificate {
  const temp = tempDir('paydesk-tls-');
  const keyFile = path.join(temp.dir, 'key.pem');
  const certFile = path.join(temp.dir, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE',
    '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile, cleanup: temp.cleanup };
}

/**
 * A fetch over node:https that trusts `ca` (and nothing else) for https, plain node:http for http
 * (the embedded emulator), for an in-process core. Enough of fetch for the gateway client: a POST
 * with a text body, headers, an abort signal, a streamed answer.
 */
export function trustingFetch(ca: string): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    return new Promise<Response>((resolve, reject) => {
      const secure = request.url.startsWith('https:');
      const options = { method: request.method, headers, signal: request.signal, ...(secure ? { ca } : {}) };
      const req = (secure ? https : http).request(request.url, options, (res) => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode ?? 500, headers: answerHeaders }));
      });
      req.on('error', reject);
      req.end(body);
    });
  };
}
