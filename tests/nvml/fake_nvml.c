/*
 * A stand-in libnvidia-ml.so.1 for gpudoctor's NVML probe tests.
 *
 * The tests load it through the real nvidia-ml-py binding (module `pynvml`), which dlopen()s
 * "libnvidia-ml.so.1" and looks up C symbols by name, so the probe is exercised end to end
 * without a GPU and without patching Python code. Symbol names, argument types and struct
 * layouts follow pynvml.py (nvidia-ml-py 13.x) and nvml.h.
 *
 * The host it pretends to be comes from a scenario file named by FAKE_NVML_SCENARIO, one
 * "key = value" a line (the notes on the right below explain; they are not part of the format):
 *
 *     # comment
 *     driver_version = 550.90.07
 *     count = 2
 *     gpu.*.name = NVIDIA H100 80GB HBM3          every GPU
 *     gpu.*.uuid = GPU-...-{i}                     {i} becomes the GPU index
 *     gpu.1.temperature_c = 88                     GPU 1 only (a GPU's own key beats "gpu.*")
 *     gpu.0.ecc_mode = !3                          the call returns NVML error 3 (NotSupported)
 *     gpu.0.mig.2.name = 1g.10gb                   MIG device in slot 2 of GPU 0
 *
 * A key that is absent makes its getter return NVML_ERROR_NOT_SUPPORTED, like a feature the
 * SKU lacks. "init = !N" makes nvmlInit fail with N. Hangs: "init_sleep_ms" delays nvmlInit,
 * "gpu.N.sleep_ms" delays nvmlDeviceGetTemperature of GPU N. FAKE_NVML_TRACE=path appends the
 * name of every entry point called to that file.
 * A vGPU guest's licence (nvmlDeviceGetGridLicensableFeatures_v4): "gpu.N.grid_license =
 * supported,count", "gpu.N.grid_feature = code,state,enabled,expiry_status", "gpu.N.grid_product
 * = NAME", "gpu.N.grid_expiry = year,month,day,hour,min,sec" (one feature, in slot 0).
 * Built with -DFAKE_NVML_OLD_DRIVER it leaves out symbols that newer drivers added, so the
 * binding sees NVML_ERROR_FUNCTION_NOT_FOUND for them, as with a driver older than the binding.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_UNKNOWN = 999,
};

typedef struct {
    int gpu;
    int mig; /* -1 for the physical GPU */
} fake_device;
typedef fake_device *nvmlDevice_t;

/* Layouts from pynvml.py: nvmlPciInfo_t, c_nvmlMemory_t, c_nvmlMemory_v2_t,
 * c_nvmlDeviceAttributes. */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct {
    unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount;
    unsigned int sharedEncoderCount, sharedJpegCount, sharedOfaCount;
    unsigned int gpuInstanceSliceCount, computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

/* c_nvmlGridLicenseExpiry_t, c_nvmlGridLicensableFeature_v4_t, c_nvmlGridLicensableFeatures_v4_t */
typedef struct {
    unsigned int year;
    unsigned short month, day, hour, min, sec;
    unsigned char status;
} nvmlGridLicenseExpiry_t;
typedef struct {
    unsigned int featureCode, featureState;
    char licenseInfo[128];
    char productName[128];
    unsigned int featureEnabled;
    nvmlGridLicenseExpiry_t licenseExpiry;
} nvmlGridLicensableFeature_t;
typedef struct {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    nvmlGridLicensableFeature_t gridLicensableFeatures[3];
} nvmlGridLicensableFeatures_t;

#define MAX_ENTRIES 1024
#define MAX_GPUS 64
#define MAX_MIG 8
static char keys[MAX_ENTRIES][96];
static char vals[MAX_ENTRIES][160];
static int n_entries;
static int scenario_loaded;
static int init_count;
static fake_device gpus[MAX_GPUS];
static fake_device migs[MAX_GPUS][MAX_MIG];

/* --- scenario ------------------------------------------------------------------------------ */

static void trace(const char *name) {
    const char *path = getenv("FAKE_NVML_TRACE");
    FILE *f;
    if (path == NULL || (f = fopen(path, "a")) == NULL) return;
    fprintf(f, "%s\n", name);
    fclose(f);
}

static char *trim(char *s) {
    char *end;
    while (*s == ' ' || *s == '\t') s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        *--end = '\0';
    return s;
}

static int load_scenario(void) {
    const char *path = getenv("FAKE_NVML_SCENARIO");
    char line[512];
    FILE *f;
    if (scenario_loaded) return 0;
    if (path == NULL || (f = fopen(path, "r")) == NULL) {
        fprintf(stderr, "fake_nvml: FAKE_NVML_SCENARIO unset or unreadable\n");
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL && n_entries < MAX_ENTRIES) {
        char *s = trim(line), *eq;
        if (*s == '\0' || *s == '#' || (eq = strchr(s, '=')) == NULL) continue;
        *eq = '\0';
        snprintf(keys[n_entries], sizeof keys[0], "%s", trim(s));
        snprintf(vals[n_entries], sizeof vals[0], "%s", trim(eq + 1));
        n_entries++;
    }
    fclose(f);
    for (int i = 0; i < MAX_GPUS; i++) {
        gpus[i] = (fake_device){i, -1};
        for (int m = 0; m < MAX_MIG; m++) migs[i][m] = (fake_device){i, m};
    }
    scenario_loaded = 1;
    return 0;
}

static const char *lookup(const char *key) {
    for (int i = n_entries - 1; i >= 0; i--) /* the last assignment wins */
        if (strcmp(keys[i], key) == 0) return vals[i];
    return NULL;
}

/* The value of `field` for a device: its own key first, then the "gpu.*" default. */
static const char *dev_lookup(const fake_device *d, const char *field) {
    char key[128];
    const char *v;
    if (d->mig < 0) snprintf(key, sizeof key, "gpu.%d.%s", d->gpu, field);
    else snprintf(key, sizeof key, "gpu.%d.mig.%d.%s", d->gpu, d->mig, field);
    if ((v = lookup(key)) != NULL) return v;
    if (d->mig < 0) snprintf(key, sizeof key, "gpu.*.%s", field);
    else snprintf(key, sizeof key, "gpu.*.mig.%d.%s", d->mig, field);
    return lookup(key);
}

/* NVML_SUCCESS when `v` holds a value; "!N" is error N; absent is NotSupported. */
static nvmlReturn_t status_of(const char *v) {
    if (v == NULL) return NVML_ERROR_NOT_SUPPORTED;
    if (v[0] == '!') return atoi(v + 1);
    return NVML_SUCCESS;
}

static void sleep_ms(const char *v) {
    long ms = v ? strtol(v, NULL, 10) : 0;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    if (ms > 0) nanosleep(&ts, NULL);
}

/* Copy `v` into buf, replacing "{i}" with the GPU index. */
static void expand(const char *v, int index, char *buf, unsigned int len) {
    unsigned int o = 0;
    while (*v && o + 1 < len) {
        if (strncmp(v, "{i}", 3) == 0) {
            o += snprintf(buf + o, len - o, "%d", index);
            v += 3;
        } else {
            buf[o++] = *v++;
        }
    }
    buf[o < len ? o : len - 1] = '\0';
}

#define GUARD(name)                                       \
    trace(name);                                          \
    if (init_count == 0) return NVML_ERROR_UNINITIALIZED;
#define GUARD_DEV(name, dev)                                       \
    GUARD(name)                                                    \
    if ((dev) == NULL) return NVML_ERROR_INVALID_ARGUMENT;

static nvmlReturn_t dev_str(nvmlDevice_t d, const char *field, char *buf, unsigned int len) {
    const char *v = dev_lookup(d, field);
    nvmlReturn_t r = status_of(v);
    if (r == NVML_SUCCESS) expand(v, d->gpu, buf, len);
    return r;
}

static nvmlReturn_t dev_ull(nvmlDevice_t d, const char *field, unsigned long long *out) {
    char buf[64];
    nvmlReturn_t r = dev_str(d, field, buf, sizeof buf);
    if (r == NVML_SUCCESS) *out = strtoull(buf, NULL, 0);
    return r;
}

static nvmlReturn_t dev_uint(nvmlDevice_t d, const char *field, unsigned int *out) {
    unsigned long long value = 0;
    nvmlReturn_t r = dev_ull(d, field, &value);
    if (r == NVML_SUCCESS) *out = (unsigned int)value;
    return r;
}

/* "a,b,..." into up to n unsigned ints. */
static nvmlReturn_t dev_list(nvmlDevice_t d, const char *field, unsigned int *out, int n) {
    const char *v = dev_lookup(d, field);
    nvmlReturn_t r = status_of(v);
    char *end;
    if (r != NVML_SUCCESS) return r;
    for (int i = 0; i < n; i++) {
        out[i] = (unsigned int)strtoul(v, &end, 0);
        v = (*end == ',') ? end + 1 : end;
    }
    return NVML_SUCCESS;
}

/* --- init and system ----------------------------------------------------------------------- */

API nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    nvmlReturn_t r;
    (void)flags;
    trace("nvmlInitWithFlags");
    if (load_scenario() != 0) return NVML_ERROR_UNKNOWN;
    sleep_ms(lookup("init_sleep_ms"));
    r = lookup("init") ? status_of(lookup("init")) : NVML_SUCCESS;
    if (r == NVML_SUCCESS) init_count++;
    return r;
}

API nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }

API nvmlReturn_t nvmlShutdown(void) {
    GUARD("nvmlShutdown")
    init_count--;
    return NVML_SUCCESS;
}

API const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_UNKNOWN: return "Unknown Error";
    default: return "Fake NVML error";
    }
}

static nvmlReturn_t system_str(const char *key, char *buf, unsigned int len) {
    const char *v = lookup(key);
    nvmlReturn_t r = status_of(v);
    if (r == NVML_SUCCESS) snprintf(buf, len, "%s", v);
    return r;
}

API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    GUARD("nvmlSystemGetDriverVersion")
    return system_str("driver_version", version, length);
}

API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    GUARD("nvmlSystemGetNVMLVersion")
    return system_str("nvml_version", version, length);
}

static nvmlReturn_t cuda_version(int *out) {
    const char *v = lookup("cuda_driver_version");
    nvmlReturn_t r = status_of(v);
    if (r == NVML_SUCCESS) *out = atoi(v);
    return r;
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *out) {
    GUARD("nvmlSystemGetCudaDriverVersion")
    return cuda_version(out);
}

#ifndef FAKE_NVML_OLD_DRIVER
API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *out) {
    GUARD("nvmlSystemGetCudaDriverVersion_v2")
    return cuda_version(out);
}
#endif

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    const char *v;
    nvmlReturn_t r;
    GUARD("nvmlDeviceGetCount_v2")
    v = lookup("count");
    r = status_of(v);
    if (r == NVML_SUCCESS) *count = (unsigned int)atoi(v);
    return r;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    const char *count = lookup("count");
    nvmlReturn_t r;
    GUARD("nvmlDeviceGetHandleByIndex_v2")
    if (count == NULL || index >= (unsigned int)atoi(count) || index >= MAX_GPUS)
        return NVML_ERROR_INVALID_ARGUMENT;
    r = status_of(dev_lookup(&gpus[index], "handle"));
    if (r == NVML_ERROR_NOT_SUPPORTED) r = NVML_SUCCESS; /* no "handle" key: a healthy GPU */
    if (r == NVML_SUCCESS) *device = &gpus[index];
    return r;
}

/* --- identity ------------------------------------------------------------------------------ */

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    GUARD_DEV("nvmlDeviceGetName", d)
    return dev_str(d, "name", name, length);
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
    GUARD_DEV("nvmlDeviceGetUUID", d)
    return dev_str(d, "uuid", uuid, length);
}

API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *serial, unsigned int length) {
    GUARD_DEV("nvmlDeviceGetSerial", d)
    return dev_str(d, "serial", serial, length);
}

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci) {
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetPciInfo_v3", d)
    memset(pci, 0, sizeof *pci);
    if ((r = dev_str(d, "pci_bus_id", pci->busId, sizeof pci->busId)) != NVML_SUCCESS) return r;
    sscanf(pci->busId, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", pci->domain & 0xffff,
             pci->bus & 0xff, pci->device & 0x1f); /* the old 16-byte form */
    dev_uint(d, "pci_device_id", &pci->pciDeviceId);
    dev_uint(d, "pci_subsystem_id", &pci->pciSubSystemId);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *memory) {
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetMemoryInfo", d)
    if ((r = dev_ull(d, "memory_total", &memory->total)) != NVML_SUCCESS) return r;
    memory->used = memory->total / 100;
    memory->free = memory->total - memory->used;
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD_DRIVER
API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *memory) {
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetMemoryInfo_v2", d)
    if (memory->version != ((2u << 24) | sizeof *memory)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if ((r = dev_ull(d, "memory_total", &memory->total)) != NVML_SUCCESS) return r;
    memory->reserved = memory->total / 200;
    memory->used = memory->total / 100;
    memory->free = memory->total - memory->used - memory->reserved;
    return NVML_SUCCESS;
}
#endif

API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor) {
    unsigned int cc[2] = {0, 0};
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetCudaComputeCapability", d)
    /* written "9.0" in scenarios: strtoul stops at '.', so read the two halves by hand */
    if ((r = status_of(dev_lookup(d, "compute_capability"))) != NVML_SUCCESS) return r;
    sscanf(dev_lookup(d, "compute_capability"), "%u.%u", &cc[0], &cc[1]);
    *major = (int)cc[0];
    *minor = (int)cc[1];
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD_DRIVER
API nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t d, unsigned int *arch) {
    GUARD_DEV("nvmlDeviceGetArchitecture", d)
    return dev_uint(d, "architecture", arch);
}
#endif

API nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t d, unsigned int *brand) {
    GUARD_DEV("nvmlDeviceGetBrand", d)
    return dev_uint(d, "brand", brand);
}

API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned int *minor) {
    GUARD_DEV("nvmlDeviceGetMinorNumber", d)
    return dev_uint(d, "minor_number", minor);
}

/* --- MIG ----------------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    unsigned int mode[2] = {0, 0};
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetMigMode", d)
    if ((r = dev_list(d, "mig_mode", mode, 2)) != NVML_SUCCESS) return r;
    *current = mode[0];
    *pending = mode[1];
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) {
    GUARD_DEV("nvmlDeviceGetMaxMigDeviceCount", d)
    return dev_uint(d, "max_mig_devices", count);
}

API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index,
                                                    nvmlDevice_t *mig) {
    GUARD_DEV("nvmlDeviceGetMigDeviceHandleByIndex", d)
    if (d->mig >= 0 || index >= MAX_MIG) return NVML_ERROR_INVALID_ARGUMENT;
    if (dev_lookup(&migs[d->gpu][index], "name") == NULL) return NVML_ERROR_NOT_FOUND;
    *mig = &migs[d->gpu][index];
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    GUARD_DEV("nvmlDeviceGetGpuInstanceId", d)
    return dev_uint(d, "gpu_instance_id", id);
}

API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    GUARD_DEV("nvmlDeviceGetComputeInstanceId", d)
    return dev_uint(d, "compute_instance_id", id);
}

API nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *attrs) {
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetAttributes_v2", d)
    memset(attrs, 0, sizeof *attrs);
    if ((r = dev_uint(d, "multiprocessor_count", &attrs->multiprocessorCount)) != NVML_SUCCESS)
        return r;
    return dev_ull(d, "memory_mb", &attrs->memorySizeMB);
}

/* --- memory health ------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    unsigned int mode[2] = {0, 0};
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetEccMode", d)
    if ((r = dev_list(d, "ecc_mode", mode, 2)) != NVML_SUCCESS) return r;
    *current = mode[0];
    *pending = mode[1];
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, unsigned int type,
                                            unsigned int counter, unsigned long long *count) {
    static const char *fields[2][2] = {
        {"ecc_corrected_volatile", "ecc_corrected_aggregate"},
        {"ecc_uncorrected_volatile", "ecc_uncorrected_aggregate"},
    };
    GUARD_DEV("nvmlDeviceGetTotalEccErrors", d)
    if (type > 1 || counter > 1) return NVML_ERROR_INVALID_ARGUMENT;
    return dev_ull(d, fields[type][counter], count);
}

API nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, unsigned int cause, unsigned int *count,
                                          unsigned long long *addresses) {
    unsigned int n = 0;
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetRetiredPages", d)
    if (cause > 1) return NVML_ERROR_INVALID_ARGUMENT;
    r = dev_uint(d, cause == 0 ? "retired_pages_sbe" : "retired_pages_dbe", &n);
    if (r != NVML_SUCCESS) return r;
    if (addresses == NULL || *count < n) { /* the binding asks for the size first */
        *count = n;
        return n > 0 ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
    }
    for (unsigned int i = 0; i < n; i++) addresses[i] = 0x1000ull * (i + 1) + cause;
    *count = n;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int *pending) {
    GUARD_DEV("nvmlDeviceGetRetiredPagesPendingStatus", d)
    return dev_uint(d, "retired_pages_pending", pending);
}

API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc,
                                          unsigned int *pending, unsigned int *failure) {
    unsigned int rows[4] = {0, 0, 0, 0};
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetRemappedRows", d)
    if ((r = dev_list(d, "remapped_rows", rows, 4)) != NVML_SUCCESS) return r;
    *corr = rows[0];
    *unc = rows[1];
    *pending = rows[2];
    *failure = rows[3];
    return NVML_SUCCESS;
}

/* --- state, link, clocks, virtualization, sensors ------------------------------------------ */

#define UINT_GETTER(symbol, field)                                 \
    API nvmlReturn_t symbol(nvmlDevice_t d, unsigned int *out) {   \
        GUARD_DEV(#symbol, d)                                      \
        return dev_uint(d, field, out);                            \
    }

UINT_GETTER(nvmlDeviceGetPersistenceMode, "persistence_mode")
UINT_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, "pcie_gen_current")
UINT_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, "pcie_gen_max")
UINT_GETTER(nvmlDeviceGetCurrPcieLinkWidth, "pcie_width_current")
UINT_GETTER(nvmlDeviceGetMaxPcieLinkWidth, "pcie_width_max")
/* nvml.h declares nvmlGpuVirtualizationMode_t* (4 bytes); the binding passes a zeroed 8-byte
 * c_ulonglong, which reads back the same on little-endian hosts. */
UINT_GETTER(nvmlDeviceGetVirtualizationMode, "virtualization_mode")
UINT_GETTER(nvmlDeviceGetPowerUsage, "power_usage_mw")
UINT_GETTER(nvmlDeviceGetEnforcedPowerLimit, "power_limit_mw")

/* nvml.h nvmlDeviceAddressingMode_v1_t: {version, value}; version (1 << 24) | sizeof. */
typedef struct {
    unsigned int version;
    unsigned int value;
} nvmlDeviceAddressingMode_v1_t;

API nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t d, nvmlDeviceAddressingMode_v1_t *mode) {
    GUARD_DEV("nvmlDeviceGetAddressingMode", d)
    if (mode->version != ((1u << 24) | sizeof *mode)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    return dev_uint(d, "addressing_mode", &mode->value);
}

#ifndef FAKE_NVML_OLD_DRIVER
API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *out) {
    GUARD_DEV("nvmlDeviceGetCurrentClocksEventReasons", d)
    return dev_ull(d, "clock_event_reasons", out);
}
#endif

/* The name drivers before R535 exported; still present in newer ones, deprecated. */
API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *out) {
    GUARD_DEV("nvmlDeviceGetCurrentClocksThrottleReasons", d)
    return dev_ull(d, "clock_event_reasons", out);
}

API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, unsigned int sensor, unsigned int *temp) {
    GUARD_DEV("nvmlDeviceGetTemperature", d)
    /* "gpu.N.sleep_ms": a GPU that makes NVML hang late in its record, after its identity */
    sleep_ms(dev_lookup(d, "sleep_ms"));
    if (sensor != 0) return NVML_ERROR_INVALID_ARGUMENT; /* NVML_TEMPERATURE_GPU only */
    return dev_uint(d, "temperature_c", temp);
}

/* --- NVLink, fabric, topology, P2P ------------------------------------------------------------
 * Scenario keys (a GPU's own key beats "gpu.*"; a link's own key beats the GPU-wide one):
 *     gpu.*.nvlink_count = 18                 links 0..17 exist; higher numbers: InvalidArgument
 *     gpu.*.nvlink.state = 1                  every link of every GPU active
 *     gpu.3.nvlink.7.state = 0                link 7 of GPU 3 down
 *     gpu.*.nvlink.version = 6                NVML_NVLINK_VERSION_4_0
 *     gpu.*.nvlink.remote_type = 2            NVSwitch
 *     gpu.*.nvlink.remote_bus_id = 00000000:A{i}:00.0
 *     gpu.*.nvlink.err.0 = 0                  counter N (nvmlNvLinkErrorCounter_t)
 *     gpu.*.fabric_state = 3                  fabric_status, fabric_health likewise
 *     topo.0.1 = 10                           level of the pair (either order); topo.* default
 *     p2p.0.1.2 = 0                           P2P status of caps index 2; p2p.*.2, p2p.* defaults
 * No nvlink_count key: every NVLink call answers NotSupported, as on a PCIe-only GPU.
 */

typedef struct {
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned int state;
} nvmlGpuFabricInfo_t;
typedef struct {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned int state;
    unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;

static nvmlReturn_t link_check(nvmlDevice_t d, unsigned int link) {
    unsigned int count = 0;
    nvmlReturn_t r = dev_uint(d, "nvlink_count", &count);
    if (r != NVML_SUCCESS) return r;
    return link < count ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* "nvlink.<link>.<field>" first, then "nvlink.<field>", each per GPU then for "gpu.*". */
static const char *link_lookup(nvmlDevice_t d, unsigned int link, const char *field) {
    char key[96];
    const char *v;
    snprintf(key, sizeof key, "nvlink.%u.%s", link, field);
    if ((v = dev_lookup(d, key)) != NULL) return v;
    snprintf(key, sizeof key, "nvlink.%s", field);
    return dev_lookup(d, key);
}

static nvmlReturn_t link_ull(nvmlDevice_t d, unsigned int link, const char *field,
                             unsigned long long *out) {
    const char *v;
    nvmlReturn_t r = link_check(d, link);
    if (r != NVML_SUCCESS) return r;
    v = link_lookup(d, link, field);
    if ((r = status_of(v)) == NVML_SUCCESS) *out = strtoull(v, NULL, 0);
    return r;
}

static nvmlReturn_t link_uint(nvmlDevice_t d, unsigned int link, const char *field,
                              unsigned int *out) {
    unsigned long long value = 0;
    nvmlReturn_t r = link_ull(d, link, field, &value);
    if (r == NVML_SUCCESS) *out = (unsigned int)value;
    return r;
}

API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, unsigned int *active) {
    GUARD_DEV("nvmlDeviceGetNvLinkState", d)
    return link_uint(d, link, "state", active);
}

API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned int link, unsigned int *v) {
    GUARD_DEV("nvmlDeviceGetNvLinkVersion", d)
    return link_uint(d, link, "version", v);
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link,
                                                    unsigned int *type) {
    GUARD_DEV("nvmlDeviceGetNvLinkRemoteDeviceType", d)
    return link_uint(d, link, "remote_type", type);
}

API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t d, unsigned int link,
                                                unsigned int counter, unsigned long long *out) {
    char field[16];
    GUARD_DEV("nvmlDeviceGetNvLinkErrorCounter", d)
    if (counter > 4) return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(field, sizeof field, "err.%u", counter);
    return link_ull(d, link, field, out);
}

API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link,
                                                    nvmlPciInfo_t *pci) {
    const char *v;
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetNvLinkRemotePciInfo_v2", d)
    memset(pci, 0, sizeof *pci);
    if ((r = link_check(d, link)) != NVML_SUCCESS) return r;
    v = link_lookup(d, link, "remote_bus_id");
    if ((r = status_of(v)) != NVML_SUCCESS) return r;
    expand(v, d->gpu, pci->busId, sizeof pci->busId);
    sscanf(pci->busId, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
    return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD_DRIVER
static nvmlReturn_t fabric(nvmlDevice_t d, nvmlReturn_t *status, unsigned int *state,
                           unsigned int *health) {
    unsigned int value = 0;
    nvmlReturn_t r = dev_uint(d, "fabric_state", state);
    if (r != NVML_SUCCESS) return r;
    if (dev_uint(d, "fabric_status", &value) == NVML_SUCCESS) *status = (nvmlReturn_t)value;
    if (health != NULL) dev_uint(d, "fabric_health", health);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t d, nvmlGpuFabricInfo_t *info) {
    GUARD_DEV("nvmlDeviceGetGpuFabricInfo", d)
    memset(info, 0, sizeof *info);
    return fabric(d, &info->status, &info->state, NULL);
}

API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t d, nvmlGpuFabricInfo_v2_t *info) {
    GUARD_DEV("nvmlDeviceGetGpuFabricInfoV", d)
    if (info->version != ((2u << 24) | sizeof *info)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    memset(info->clusterUuid, 0, sizeof info->clusterUuid);
    info->status = NVML_SUCCESS;
    info->cliqueId = 0;
    info->healthMask = 0;
    return fabric(d, &info->status, &info->state, &info->healthMask);
}
#endif

/* "<prefix>.a.b<suffix>" for either order of the pair, then "<prefix>.*<suffix>". */
static const char *pair_lookup(const char *prefix, int a, int b, const char *suffix) {
    char key[96];
    const char *v;
    snprintf(key, sizeof key, "%s.%d.%d%s", prefix, a, b, suffix);
    if ((v = lookup(key)) != NULL) return v;
    snprintf(key, sizeof key, "%s.%d.%d%s", prefix, b, a, suffix);
    if ((v = lookup(key)) != NULL) return v;
    snprintf(key, sizeof key, "%s.*%s", prefix, suffix);
    return lookup(key);
}

API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b,
                                                    unsigned int *level) {
    const char *v;
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetTopologyCommonAncestor", a)
    if (b == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    v = pair_lookup("topo", a->gpu, b->gpu, "");
    if ((r = status_of(v)) == NVML_SUCCESS) *level = (unsigned int)strtoul(v, NULL, 0);
    return r;
}

API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, unsigned int caps,
                                       unsigned int *status) {
    char suffix[16];
    const char *v;
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetP2PStatus", a)
    if (b == NULL || caps > 5) return NVML_ERROR_INVALID_ARGUMENT;
    snprintf(suffix, sizeof suffix, ".%u", caps);
    if ((v = pair_lookup("p2p", a->gpu, b->gpu, suffix)) == NULL) v = lookup("p2p.*");
    if ((r = status_of(v)) == NVML_SUCCESS) *status = (unsigned int)strtoul(v, NULL, 0);
    return r;
}

/* --- vGPU licence -------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(nvmlDevice_t d,
                                                        nvmlGridLicensableFeatures_t *out) {
    unsigned int head[2] = {0, 0}, feature[4] = {0, 0, 0, 0}, when[6] = {0, 0, 0, 0, 0, 0};
    nvmlGridLicensableFeature_t *f = &out->gridLicensableFeatures[0];
    nvmlReturn_t r;
    GUARD_DEV("nvmlDeviceGetGridLicensableFeatures_v4", d)
    memset(out, 0, sizeof *out);
    if ((r = dev_list(d, "grid_license", head, 2)) != NVML_SUCCESS) return r;
    out->isGridLicenseSupported = (int)head[0];
    out->licensableFeaturesCount = head[1] > 3 ? 3 : head[1];
    if (dev_list(d, "grid_feature", feature, 4) == NVML_SUCCESS) {
        f->featureCode = feature[0];
        f->featureState = feature[1];
        f->featureEnabled = feature[2];
        f->licenseExpiry.status = (unsigned char)feature[3];
    }
    dev_str(d, "grid_product", f->productName, sizeof f->productName);
    if (dev_list(d, "grid_expiry", when, 6) == NVML_SUCCESS) {
        f->licenseExpiry.year = when[0];
        f->licenseExpiry.month = (unsigned short)when[1];
        f->licenseExpiry.day = (unsigned short)when[2];
        f->licenseExpiry.hour = (unsigned short)when[3];
        f->licenseExpiry.min = (unsigned short)when[4];
        f->licenseExpiry.sec = (unsigned short)when[5];
    }
    return NVML_SUCCESS;
}
