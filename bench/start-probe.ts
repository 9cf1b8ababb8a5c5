// A preload (`node --import ./bench/start-probe.ts src/main.ts`): counts the modules a gateway loads
// (ESM and CJS, through a load hook) and the CPU it spends until its server first listens, prints
// them with the packages that loaded the most modules (TOP, default 8) as one JSON line, and exits.
// bench/RESULTS.md, "Session 9: start-up (lazy)".
import { registerHooks } from 'node:module';
import net from 'node:net';

const byPackage = new Map<string, number>();
let modules = 0;
registerHooks({
  load(url, context, next) {
    modules++;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? (url.startsWith('node:') ? 'node:' : 'own');
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + 1);
    return next(url, context);
  },
});

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  this.once('listening', () => {
    const u = process.cpuUsage();
    const top = [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 8));
    console.log(JSON.stringify({ modules, cpuMs: Math.round((u.user + u.system) / 1000), top }));
    process.exit(0);
  });
  return (listen as (...a: unknown[]) => net.Server).apply(this, args);
} as typeof listen;
