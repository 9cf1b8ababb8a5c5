// Import rules checked by `npm test` (docs/architecture.md): the parts of the layering that hold
// today. A wrong import fails CI with the rule's name and the offending edge.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'ir-is-the-leaf',
      comment: 'The IR is polygate\'s own vocabulary: it imports nothing but itself.',
      severity: 'error',
      from: { path: '^src/ir/' },
      to: { pathNot: '^src/ir/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-are-pure',
      comment: 'An adapter translates one wire format to and from the IR: it imports only the IR and adapters/shared (no Koa, no I/O, no pipeline).',
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
      name: 'no-circular-in-adapters',
      severity: 'error',
      from: { path: '^(adapters|src/ir)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
