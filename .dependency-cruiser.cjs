// Import rules checked by `npm test` (`npm run lint:deps`; docs/architecture.md, "Layers"). A wrong
// import fails CI with the rule's name and the offending edge.
//
// Layers, bottom to top; each imports only the layers below it:
//   src/ir/        polygate's own types
//   adapters/      one folder per wire format (pure: only the IR and adapters/shared)
//   src/infra/     config, formats list, store, metrics, log, errors, outbound guard, tracing SDK,
//                  upstream client, HTTP primitives
//   src/services/  runtime, auth, access (authenticate, budgets, key limits), limits, tokens, routing,
//                  resilience, providers, sessions, request tracing, usage
//   src/families/  chat pipeline, responses, gemini, speech, tune, discovery
//   src/app/       the Koa app, route registration, config reload, command-line tools; src/main.ts is
//                  the process entry
// Inside a layer, folders may import each other, but no two folders of src/ may reach each other.
// Type-only imports count everywhere: a type names the module it comes from just as a value does.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'ir-is-the-leaf',
      comment: "The IR is polygate's own vocabulary: it imports nothing but itself.",
      severity: 'error',
      from: { path: '^src/ir/' },
      to: { pathNot: '^src/ir/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-are-pure',
      comment:
        'An adapter translates one wire format to and from the IR: it imports only the IR and adapters/shared (no Koa, no I/O, no pipeline).',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { pathNot: ['^src/ir/', '^adapters/'] },
    },
    {
      name: 'adapters-do-not-know-each-other',
      comment: 'One adapter per wire format: what two formats share lives in adapters/shared.',
      severity: 'error',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/', pathNot: ['^adapters/$1/', '^adapters/shared/'] },
    },
    {
      name: 'shared-knows-no-format',
      comment: 'adapters/shared serves every format, so it names none of them.',
      severity: 'error',
      from: { path: '^adapters/shared/' },
      to: { path: '^adapters/', pathNot: '^adapters/shared/' },
    },
    {
      name: 'src-lives-in-a-layer',
      comment: 'Every file of src/ belongs to one layer folder (src/main.ts, the process entry, counts as app).',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/(ir|infra|services|families|app)/[^/]+/', '^src/(ir|app)/[^/]+$', '^src/main\\.ts$'],
      },
      to: {},
    },
    {
      name: 'infra-is-below-services',
      comment: 'src/infra/ is machinery any layer uses; it knows no key, route, provider or family handler.',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: ['^src/(services|families|app)/', '^src/main\\.ts$'] },
    },
    {
      name: 'services-are-below-families',
      comment: 'src/services/ serve every family; a service never calls a family handler or the app.',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: ['^src/(families|app)/', '^src/main\\.ts$'] },
    },
    {
      name: 'families-are-below-the-app',
      comment: "A family's handlers are mounted by the app (src/app/); they never import it.",
      severity: 'error',
      from: { path: '^src/families/' },
      to: { path: ['^src/app/', '^src/main\\.ts$'] },
    },
    {
      name: 'only-main-imports-the-app',
      comment: 'src/app/ is the top: only the process entry (src/main.ts) and tests start it.',
      severity: 'error',
      from: { path: '^(src|adapters)/', pathNot: ['^src/app/', '^src/main\\.ts$'] },
      to: { path: '^src/app/' },
    },
    {
      name: 'no-circular-files',
      comment: 'No import cycle between files.',
      severity: 'error',
      from: { path: '^(src|adapters)/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment:
        'No import cycle between folders (type-only imports included): each folder has a direction to the others.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|adapters)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
