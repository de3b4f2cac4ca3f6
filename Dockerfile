# syntax=docker/dockerfile:1
# mcp-oxp-bridge: MCP (Streamable HTTP) in front of an OXP tool server.
# Build: docker build -t mcp-oxp-bridge .
# Run:   docker run --rm --stop-timeout 30 -p 8080:8080 -e OXP_URL=http://tools:9000 -e MCP_AUTH_TOKENS=<token> mcp-oxp-bridge
#        docker run --rm --stop-timeout 30 -p 8090:8090 -e OXP_SERVER_API_KEYS=<key> mcp-oxp-bridge oxp-server --mcp-url http://mcp:3000/mcp
# (--stop-timeout: SIGTERM drains in-flight calls for http.shutdownGraceSeconds, 25 s by default, and the
# process exits within that plus a second; docker stop's own default of 10 s would kill long calls first)
# (bound to 0.0.0.0, the bridge refuses to start without MCP_AUTH_TOKENS or OAuth settings, or an explicit
# MCP_ALLOW_UNAUTHENTICATED=true)

# Node.js current LTS, pinned to a release (override with --build-arg NODE_IMAGE=…@sha256:… to pin a digest).
# npm test runs the HTTP, stdio, oxp-server and operations suites on this same release (test/image-node/
# pins it; a unit test keeps the two equal): change both together.
ARG NODE_IMAGE=node:26.9.0-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src ./src
COPY scripts/build.mjs ./scripts/
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MCP_TRANSPORT=http \
    MCP_HOST=0.0.0.0 \
    MCP_PORT=8080 \
    OXP_SERVER_HOST=0.0.0.0 \
    OXP_SERVER_PORT=8090
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY config ./config
# The operator console's static page (served from the package, never fetched from elsewhere).
COPY assets ./assets
# Everything above is owned by root and read-only to the runtime user; the
# process writes nothing to disk but V8's compile cache in ~/.cache/mcp-oxp-bridge when it can (skipped
# silently otherwise), so a read-only root filesystem works.
# Numeric (the image's `node` user and group): Kubernetes' runAsNonRoot can only
# verify a numeric user, and refuses to start an image whose USER is a name.
USER 1000:1000
STOPSIGNAL SIGTERM
EXPOSE 8080 8090
# Either command: the MCP bridge answers /healthz on MCP_PORT, `oxp-server` answers /health on OXP_SERVER_PORT.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const up=(u)=>fetch(u).then(r=>{if(!r.ok)throw new Error()});Promise.any([up('http://127.0.0.1:'+(process.env.MCP_PORT||8080)+'/healthz'),up('http://127.0.0.1:'+(process.env.OXP_SERVER_PORT||8090)+'/health')]).then(()=>process.exit(0),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli.js"]
