# The production server in a container:
#   docker build -t pmb .
#   docker run -d --restart=always -p 3000:3000 -v pmb-data:/app/.data pmb
# With PostgreSQL and Redis: -e DATABASE_URL=postgresql://... -e REDIS_URL=redis://...
# (and -e WEB_CONCURRENCY=N for N workers; the server restarts a dead worker itself).
#
# Restart policy: the image cannot set one; run it with `--restart=always` (docker), `restart:
# always` (compose) or your orchestrator's equivalent, so a killed server comes back. The
# HEALTHCHECK below is liveness: /livez answers while the process does, whatever the shared
# database or Redis do (a dependency outage marks no container unhealthy, and a restart would fix
# nothing). Load balancers use readiness, /readyz (deploy/nginx/pmb.conf, deploy/Caddyfile).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY scripts ./scripts
RUN npm ci
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
VOLUME ["/app/.data"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=120s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains (SHUTDOWN_TIMEOUT_MS, 10 s by default): give `docker stop -t 15` or stop_grace_period: 15s.
STOPSIGNAL SIGTERM
CMD ["node", "scripts/start.mjs"]
