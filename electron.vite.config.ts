import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY } from './src/main/security-policy';

const { version, dependencies } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string; dependencies: Record<string, string> };

// Main bundles its pure-JavaScript dependencies: Node's module loader resolving, reading and
// compiling each of their files cost ~70 ms of CPU at every start (docs/performance.md). Outside the
// bundle: the native modules (rebuilt per runtime), pg (its optional native binding), and jose and
// ky, which main imports on first use.
const MAIN_EXTERNAL = new Set(['better-sqlite3', 'keytar', 'pg', 'jose', 'ky']);

// The production index.html carries the CSP too (the dev server needs inline scripts for HMR).
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'paydesk-csp-meta',
    apply: 'build',
    transformIndexHtml: (html) =>
      html.replace('<head>', `<head>\n    <meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}" />`),
  };
}

export default defineConfig({
  main: {
    define: { __PAYDESK_VERSION__: JSON.stringify(version) },
    build: {
      externalizeDeps: { exclude: Object.keys(dependencies).filter((name) => !MAIN_EXTERNAL.has(name)) },
      rollupOptions: {
        input: {
          index: path.resolve('src/main/index.ts'),
          web: path.resolve('src/main/web/main.ts'),
          server: path.resolve('src/main/server/main.ts'),
          // The statements file reader's worker thread (services/statements/reader-thread.ts), started
          // from the bundle's own folder: every chunk is written there too.
          'statements-reader': path.resolve('src/main/services/statements/reader-worker.ts'),
        },
        output: { chunkFileNames: '[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require() packages: bundle everything into one CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: path.resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    plugins: [react(), contentSecurityPolicyMeta()],
    build: {
      // electron-vite leaves the renderer unminified by default; minified, the first bundle is about
      // half the JavaScript to parse at cold start (docs/performance.md).
      minify: true,
      // The bundle is read from disk or loopback, not a slow network: its weight is judged by the
      // cold-start benchmark (docs/performance.md), and Vite's 500 kB advice printed at every start.
      chunkSizeWarningLimit: 1_000,
      rollupOptions: { input: { index: path.resolve('src/renderer/index.html') } },
    },
  },
});
