# syntax=docker/dockerfile:1
# imgtask: the HTTP API and its workers. Build: docker build -t imgtask .
# Run:   docker run -d -p 8080:8080 -v imgtask-data:/data --stop-timeout 30 imgtask
# (compose.yaml beside this file does the same.) The data dir is the volume /data.

# ---- build: all dependencies, compile src/ to dist/, then drop the dev dependencies ----
FROM node:20-slim AS build
WORKDIR /app
# Dependencies first, so that a change to the sources does not reinstall them. Install scripts
# are not needed: every native part (sharp, onnxruntime-node) ships inside its registry package,
# and onnxruntime-node's own script would download optional CUDA libraries.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# ---- runtime: the compiled CLI, production dependencies, the default config, the console's files, the SQL migrations ----
FROM node:20-slim
ENV NODE_ENV=production \
    IMGTASK_DATA=/data \
    IMGTASK_HOST=0.0.0.0 \
    IMGTASK_PORT=8080
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json README.md LICENSE ./
COPY config ./config
COPY public ./public
COPY sql ./sql
COPY bin/imgtask.js ./bin/imgtask.js
# `imgtask` on PATH, for `docker exec <container> imgtask accounts create …` (operator commands
# reach the running server through its socket in /data).
 RUN ln -s /app/bin/imgtask.js /usr/local/bin/imgtask \
 && mkdir -p /data/keys && chown -R node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# /ready answers 200 once the store is writable and the enabled models are loaded, 503 before.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.IMGTASK_PORT || 8080) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# serve drains on SIGTERM for up to work.shutdownGraceMs (10 s by default): stop with a longer
# timeout (docker stop -t 30, compose stop_grace_period) so running items can finish.
STOPSIGNAL SIGTERM
CMD ["node", "/app/bin/imgtask.js", "serve"]
