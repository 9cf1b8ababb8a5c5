// The key ring's cost per authenticate by number of keys, in process, for a checkout (default: this one).
//   node bench/keyring-micro.ts [CHECKOUT]
import { resolve } from 'node:path';

const dir = resolve(process.argv[2] ?? '.');
const { KeyRing } = (await import(
  `${dir}/src/services/auth/key-ring.ts`
)) as typeof import('../src/services/auth/key-ring.ts');
for (const n of [1, 100, 1000, 5000]) {
  const ring = new KeyRing(
    Array.from({ length: n }, (_, i) => ({ id: `k${i}`, secret: `sk-many-${i}-secret`, workspace: 'w' })),
  );
  const probe = `sk-many-${n - 1}-secret`;
  for (let i = 0; i < 2000; i++) ring.authenticate(probe);
  const rounds = n >= 1000 ? 5000 : 100_000;
  const t = performance.now();
  for (let i = 0; i < rounds; i++) ring.authenticate(probe);
  process.stdout.write(`${n} keys: ${(((performance.now() - t) * 1000) / rounds).toFixed(2)} µs per authenticate\n`);
}
