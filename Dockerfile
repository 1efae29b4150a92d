# syntax=docker/dockerfile:1
#
# One image for the API, the Temporal worker, the SMTP intake and the migrations; docker-compose.yml picks the
# process with `command:` (default: the API). The build stage compiles the API, worker and intake
# with esbuild (`npm run build`: dist/run/*.js) and prebuilds the workflow bundle, so the
# running processes load neither tsx nor webpack (docs/performance.md "Memory"); the sources
# stay in the image for the migrations and the admin CLI, which run through tsx.
#
#   docker build -t invoicing .
#   docker run --rm -p 3000:3000 -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... invoicing
#   docker run --rm -e DATABASE_URL=... invoicing npm run migrate
#   docker run --rm -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... invoicing npm run worker:compiled
#   docker run --rm -p 2525:2525 -e SMTP_HOST=0.0.0.0 -e DATABASE_URL=... -e TEMPORAL_ADDRESS=... invoicing npm run intake:compiled

# --- dependencies: exactly package-lock.json, without devDependencies ------------------------
FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
COPY package.json package-lock.json .npmrc ./
# The install scripts that run (esbuild, @swc/core, protobufjs) are the ones package.json's
# "allowScripts" approves for npm 11; the npm 10 bundled with Node 20 ignores that field and
# runs every install script in the lockfile.
RUN npm ci --omit=dev \
 && npm cache clean --force

# --- compiled parts and the workflow bundle ---------------------------------------------------
FROM deps AS build
COPY . .
RUN npm run build

# --- runtime ----------------------------------------------------------------------------------
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/.data \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
# The official image's unprivileged `node` user (uid 1000) owns only the data folder; the
# code and node_modules stay root-owned and read-only to the process.
COPY --from=build /app /app
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
CMD ["npm", "run", "api:compiled"]
