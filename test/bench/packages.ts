// `npm run bench` (packages part): what each published package weighs as a tarball and installed, from
// `npm pack --dry-run` on the built workspaces (nothing is written).
import { execFileSync } from 'node:child_process';

interface PackInfo {
  name: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
}

export async function run() {
  const out = execFileSync('npm', ['pack', '--workspaces', '--dry-run', '--json', '--ignore-scripts'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const packs = JSON.parse(out) as PackInfo[];
  console.log('\npackages (npm pack --dry-run)');
  for (const p of packs) {
    console.log(
      `  ${p.name.padEnd(18)} tarball ${(p.size / 1024).toFixed(1).padStart(6)} KB, unpacked ${(p.unpackedSize / 1024).toFixed(1).padStart(6)} KB, ${p.entryCount} files`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
