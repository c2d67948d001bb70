# dnsbatch: the external-dns webhook provider sidecar (`dnsbatch serve`).
#
#   docker build -t dnsbatch .
#   docker run --rm dnsbatch serve --help
#
# The build stage runs exactly what the README asks of a developer, `make deps`
# (the Debian packages) and `make`; the image keeps only the program and the
# shared libraries it links.
FROM debian:bookworm-slim AS build
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends make ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# A host build tree must not leak into the image: objects built elsewhere
# may have other flags or libraries.
RUN make clean \
 && make deps \
 && make -j"$(nproc)" \
 && make install PREFIX=/usr/local DESTDIR=/out \
 && /out/usr/local/bin/dnsbatch --version

FROM debian:bookworm-slim
# Runtime libraries of the providers: ldns (zone files, RFC 2136), json-c,
# libmicrohttpd (the webhook server), libcurl and OpenSSL (HTTP APIs, OAuth2).
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      libldns3 libjson-c5 libmicrohttpd12 libcurl4 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/bin/dnsbatch /usr/local/bin/dnsbatch
# The distroless "nonroot" id: no shell account, nothing to escalate to. The
# zonefile provider needs its directory writable by this user.
USER 65532:65532
# 8888 is the provider API, bound to 127.0.0.1 by default (only external-dns,
# in the same pod, talks to it); 8080 serves /healthz and /metrics.
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/dnsbatch"]
CMD ["serve", "--help"]
