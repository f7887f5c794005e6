# The penguin-gateway image. The build stage compiles better-sqlite3 from source and the TypeScript, then
# drops the devDependencies; the final stage holds only the built gateway, its production dependencies and
# the files it reads at run time (config/, skills/), runs as the unprivileged `node` user with its data on
# the /data volume, and answers its health check on /healthz. See docker-compose.yml and the README.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# A C++ toolchain and Python for node-gyp: better-sqlite3 builds its native module here. The stage is
# thrown away, so the Debian packages are not pinned.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential python3 \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
# Only what runs ships: no compiler, no test tools, no native build leftovers.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/better-sqlite3/build/Release/obj node_modules/better-sqlite3/build/Release/obj.target \
      node_modules/better-sqlite3/build/Release/test_extension.node node_modules/better-sqlite3/deps node_modules/better-sqlite3/src

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    PENGUIN_HOME=/data \
    PENGUIN_GATEWAY_HOST=0.0.0.0 \
    PENGUIN_GATEWAY_PORT=7370
WORKDIR /app
# The code belongs to root and is read-only to the gateway (and to the tools its agents run).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/dashboard ./dist/dashboard
COPY config ./config
COPY skills ./skills
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
EXPOSE 7370
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PENGUIN_GATEWAY_PORT || 7370) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is the process that receives SIGTERM and shuts down within shutdown.grace_ms.
CMD ["node", "dist/src/gateway/cli.js", "start"]
