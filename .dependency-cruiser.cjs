/** The layering rules of docs/architecture (DESIGN.md): checked in CI by `npm run depcheck`. */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      comment: "core/ imports nothing of ours but itself",
      severity: "error",
      from: { path: "^src/core/" },
      to: { path: "^src/(?!core/)" },
    },
    {
      name: "routes-never-touch-the-database",
      comment: "a route calls use cases; it never imports a repository, a view's SQL or infra/db",
      severity: "error",
      from: { path: "(^src/http/|\\.routes\\.ts$)" },
      to: { path: "(^src/infra/db/|\\.repository\\.ts$)" },
    },
    {
      name: "use-cases-know-no-http",
      comment: "use cases and repositories never import the HTTP layer or Fastify",
      severity: "error",
      from: { path: "^src/modules/", pathNot: "\\.(routes|schemas)\\.ts$" },
      to: { path: "(^src/http/|node_modules/fastify|node_modules/@fastify/)" },
    },
    {
      name: "modules-keep-their-repositories",
      comment: "modules talk through use cases or events, never through another module's repository",
      severity: "error",
      from: { path: "^src/modules/([^/]+)/" },
      to: { path: "^src/modules/([^/]+)/.+\\.repository\\.ts$", pathNot: "^src/modules/$1/" },
    },
    {
      name: "infra-below-modules",
      comment: "infrastructure does not reach up into modules or the HTTP layer",
      severity: "error",
      from: { path: "^src/infra/" },
      to: { path: "^src/(modules|http)/" },
    },
    {
      name: "context-below-modules",
      comment: "Deps and Ctx know no module: a module's state is declared beside it, its contracts in core/",
      severity: "error",
      from: { path: "^src/modules/context\\.ts$" },
      to: { path: "^src/modules/(?!context\\.ts$)" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
