# pt2onnx in a container without Python:
#   docker build -t pt2onnx .
#   docker run --rm -v "$PWD:/work" pt2onnx model.pt2 -o model.onnx
# The builder (Debian 12 with the -dev packages) builds, runs the unit tests and packages the
# .deb; the runtime stage (debian:12-slim) installs only that .deb, which pulls in exactly the
# shared libraries dpkg-shlibdeps found (tests/deploy/run_package_tests.py checks the closure).
FROM debian:12 AS builder
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config dpkg-dev file libonnx-dev libprotobuf-dev protobuf-compiler \
      nlohmann-json3-dev libsimdjson-dev zlib1g-dev libzip-dev zipcmp zipmerge ziptool libcli11-dev doctest-dev libmimalloc-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The model tests need the Python test venv, which this image has no use for: unit tests only.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPT2ONNX_MODEL_TESTS=OFF \
 && cmake --build /build \
 && (cd /build && ctest --output-on-failure -L unit) \
 && cpack -G DEB --config /build/CPackConfig.cmake -B /packages

FROM debian:12-slim
COPY --from=builder /packages/pt2onnx_*.deb /tmp/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/pt2onnx_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/pt2onnx_*.deb
WORKDIR /work
ENTRYPOINT ["pt2onnx"]
