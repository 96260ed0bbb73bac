# Finds every system dependency of the core and the tests in one place; it must never download anything.
# Debian 12 and Ubuntu 24.04 ship all of these as packages (scripts/setup.sh installs them).
find_package(CUDAToolkit 12.8 REQUIRED)   # NVRTC headers and library; the driver is dlopen'ed, never linked
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt 9 REQUIRED)
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)
find_package(Boost 1.74 REQUIRED CONFIG)  # Boost.DLL is header-only; used with std::filesystem
find_package(CLI11 QUIET CONFIG)
if(NOT CLI11_FOUND)
  find_path(KSEEK_CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE "${KSEEK_CLI11_INCLUDE_DIR}")
endif()
find_package(Threads REQUIRED)
