# drivelab api (and worker) image: the built frontend served by the api, fio for workers.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends fio nvme-cli smartmontools hdparm util-linux \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY backend/ backend/
COPY worker/ worker/
COPY migrations/ migrations/
RUN pip install --no-cache-dir .
COPY --from=frontend /src/frontend/dist /app/frontend/dist
ENV DRIVELAB_FRONTEND_DIR=/app/frontend/dist \
    DRIVELAB_DATA_DIR=/data
VOLUME /data
EXPOSE 8000
CMD ["drivelab", "up", "--host", "0.0.0.0", "--port", "8000", "--no-worker"]
