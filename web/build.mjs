// build.mjs — bundle the page into OUT (default ../build/web): esbuild
// turns src/main.js (with three.js and the CSS it imports) into
// content-hashed files under OUT/assets, index.html is written with those
// names, and every text asset gets Brotli and gzip twins the server sends
// to browsers that accept them. Offline: everything comes from
// node_modules.
//
//   node build.mjs [OUT]

import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] || join(here, '..', 'build', 'web'));
const assets = join(out, 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: { main: join(here, 'src', 'main.js') },
  bundle: true,
  format: 'esm',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  outdir: assets,
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

const names = {};
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  if (meta.entryPoint || file.endsWith('.css')) {
    const b = basename(file);
    names[b.replace(/-[A-Z0-9]{8}\./, '.')] = b;
  }
}

// the icon: named by its content like the rest
const icon = readFileSync(join(here, 'src', 'favicon.svg'));
const iconName = `favicon-${createHash('sha256').update(icon).digest('hex').slice(0, 8).toUpperCase()}.svg`;
writeFileSync(join(assets, iconName), icon);
names['favicon.svg'] = iconName;

let html = readFileSync(join(here, 'index.html'), 'utf8');
html = html.replace(/\{\{([^}]+)\}\}/g, (_, k) => {
  if (!names[k]) throw new Error(`index.html names ${k}, which the build did not make`);
  return names[k];
});
writeFileSync(join(out, 'index.html'), html);

let bytes = 0;
for (const dir of [out, assets]) {
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    if (!f.isFile() || !/\.(js|css|svg|html|map|txt)$/.test(f.name)) continue;
    const p = join(dir, f.name);
    const raw = readFileSync(p);
    bytes += raw.length;
    // index.html stays plain: it is small and answered no-cache anyway
    if (dir === out) continue;
    const gz = gzipSync(raw, { level: constants.Z_BEST_COMPRESSION });
    if (gz.length < raw.length * 0.9) writeFileSync(`${p}.gz`, gz);
    const br = brotliCompressSync(raw, {
      params: {
        // source maps are fetched by developer tools only: quick to make
        [constants.BROTLI_PARAM_QUALITY]: f.name.endsWith('.map') ? 5 : constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    if (br.length < raw.length * 0.9) writeFileSync(`${p}.br`, br);
  }
}
console.log(`web: ${Object.values(names).join(', ')} → ${out} (${Math.round(bytes / 1024)} KiB)`);
