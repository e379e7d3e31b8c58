/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the node: its fabric NICs and its GPUs as PCIe sees them (issue
 * 29).  For each device its PCIe link (current and maximum speed and
 * width), the chain of bridges up to its root port with each one's link
 * and ACS control, its NUMA node and socket, its IOMMU mode; for NICs the
 * firmware's own LLDP agent where the driver exposes it; for the node,
 * GPUDirect RDMA readiness.  Read by src/sys/pcie.c (sysfs, and PCI
 * config space through sysfs `config`); pure data and rules here, the
 * rules in model/pcie_topo.c.
 *
 * What is a NIC: a PCI function with a network device or an RDMA device
 * on it (virtual functions skipped).  What is a GPU: a PCI display or 3D
 * controller (class 0x03xx) other than a BMC's VGA (ASPEED, Matrox), or a
 * processing accelerator (class 0x1200), of any vendor.
 *
 * Ownership: struct pcie_view owns its arrays and their elements' arrays;
 * pcie_view_free() frees all (NULL-safe).  The *_add() helpers return a
 * borrowed pointer to a new zeroed element (valid until the next _add on
 * the same array), NULL when out of memory.
 */
#ifndef FAB_MODEL_PCIE_H
#define FAB_MODEL_PCIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCIE_BDF_LEN 16		/* "0000:41:00.0" */
#define PCIE_MAX_NAMES 4	/* netdevs / RDMA devices kept per function */

/* One PCIe link; speeds in MT/s (8000 is 8.0 GT/s), 0 when unknown. */
struct pcie_link {
	unsigned int speed_mts;		/* current */
	unsigned int width;		/* current lanes */
	unsigned int max_speed_mts;	/* what this end supports */
	unsigned int max_width;
};

/* Device/Port Type of the PCI Express capability (bits 7:4 of its register 2). */
enum pcie_port_type {
	PCIE_TYPE_UNKNOWN = 0,	/* no PCIe capability read */
	PCIE_TYPE_ENDPOINT,
	PCIE_TYPE_ROOT_PORT,
	PCIE_TYPE_UPSTREAM,	/* switch upstream port */
	PCIE_TYPE_DOWNSTREAM,	/* switch downstream port */
	PCIE_TYPE_PCI_BRIDGE,	/* PCIe to PCI(-X) bridge, or the reverse */
	PCIE_TYPE_OTHER,	/* root complex integrated endpoint, event collector, legacy */
};

/* ACS Control bits (PCIe base spec, ACS Extended Capability; linux PCI_ACS_*). */
#define PCIE_ACS_SV 0x0001	/* source validation */
#define PCIE_ACS_TB 0x0002	/* translation blocking */
#define PCIE_ACS_RR 0x0004	/* P2P request redirect */
#define PCIE_ACS_CR 0x0008	/* P2P completion redirect */
#define PCIE_ACS_UF 0x0010	/* upstream forwarding */
#define PCIE_ACS_EC 0x0020	/* P2P egress control */
#define PCIE_ACS_DT 0x0040	/* direct translated P2P */
/* The bits that send peer-to-peer traffic up to the root complex: "ACS on". */
#define PCIE_ACS_P2P_REDIRECT (PCIE_ACS_RR | PCIE_ACS_CR | PCIE_ACS_EC)

enum pcie_acs_state {
	PCIE_ACS_UNREAD = 0,	/* extended config space not readable (not root) */
	PCIE_ACS_ABSENT,	/* read: the port has no ACS capability */
	PCIE_ACS_PRESENT,	/* read: cap and ctl valid */
};

struct pcie_acs {
	enum pcie_acs_state state;
	uint16_t cap, ctl;
};

struct pcie_bridge {
	char bdf[PCIE_BDF_LEN];
	enum pcie_port_type type;
	struct pcie_link link;	/* its own link (a downstream/root port: the one below it) */
	struct pcie_acs acs;
};

/* The NIC firmware's LLDP agent, as a driver's private flag says. */
enum pcie_fw_lldp {
	PCIE_FW_LLDP_UNKNOWN = 0,	/* no driver flag for it (or no netdev) */
	PCIE_FW_LLDP_OFF,
	PCIE_FW_LLDP_ON,
};

struct pcie_dev {
	char bdf[PCIE_BDF_LEN];
	char host_bridge[PCIE_BDF_LEN];	/* sysfs "pci0000:40": the root complex */
	uint16_t vendor, device;
	uint32_t class_code;		/* 0x020000 Ethernet, 0x020700 InfiniBand, 0x0302xx 3D */
	char driver[32];		/* "" when unbound */
	char netdevs[PCIE_MAX_NAMES][16];
	size_t n_netdevs;
	char rdma[PCIE_MAX_NAMES][64];
	size_t n_rdma;
	struct pcie_link link;
	bool link_from_port;		/* the device has no PCIe link files (a conventional
					 * PCI function): link is its upstream port's */
	int numa_node;			/* -1 unknown */
	int socket;			/* physical package of the node's first CPU; -1 unknown */
	char iommu[16];			/* IOMMU group type: "identity", "DMA", "DMA-FQ", ...;
					 * "off" when the device has no IOMMU group; "" unknown */
	struct pcie_bridge *bridges;	/* root port first, the port right above the device last */
	size_t n_bridges;
	enum pcie_fw_lldp fw_lldp;	/* NICs */
	char fw_lldp_flag[32];		/* the private flag it was read from, "" none */
};

/* GPUDirect RDMA: how a NIC can reach GPU memory. */
struct pcie_gpudirect {
	char peer_mem[32];	/* loaded peer-memory module (nvidia_peermem, ...), "" none */
	bool dma_buf;		/* dma-buf path: kernel >= 5.12 and a GPU driver exporting dma-buf */
	char dma_buf_via[32];	/* the GPU driver that gives it ("amdgpu", "nvidia-open"), "" */
};

struct pcie_view {
	struct pcie_dev *nics;		/* sorted by BDF */
	size_t n_nics;
	struct pcie_dev *gpus;		/* sorted by BDF */
	size_t n_gpus;
	unsigned int numa_nodes;	/* nodes the kernel lists; 0 unknown */
	bool config_read;		/* config space past its first 64 bytes was readable
					 * (root): ACS known where it exists */
	struct pcie_gpudirect gd;
};

struct pcie_view *pcie_view_new(void);
void pcie_view_free(struct pcie_view *v);
struct pcie_dev *pcie_view_nic_add(struct pcie_view *v);
struct pcie_dev *pcie_view_gpu_add(struct pcie_view *v);
struct pcie_bridge *pcie_dev_bridge_add(struct pcie_dev *d);
/* The NIC with this BDF, or NULL. */
struct pcie_dev *pcie_view_nic_by_bdf(const struct pcie_view *v, const char *bdf);
/* Add @name to @d's netdevs (@rdma false) or RDMA devices; duplicates and overflow dropped. */
void pcie_dev_name_add(struct pcie_dev *d, const char *name, bool rdma);
/* Keep the NICs with a netdev or RDMA device named in @names (status DEVICE...); GPUs stay. */
void pcie_view_keep_named(struct pcie_view *v, char *const *names, size_t n);
/* Sort NICs and GPUs by BDF. */
void pcie_view_sort(struct pcie_view *v);

/* The NIC's name for messages: its first netdev, else its first RDMA device, else its BDF. */
const char *pcie_dev_name(const struct pcie_dev *d);

/* ---- what sysfs and config space say, parsed (pure) ---- */

/* "0000:41:00.0" (domain:bus:device.function, lower-case hex). */
bool pcie_is_bdf(const char *s);
/* sysfs current_link_speed: "8.0 GT/s PCIe", "16 GT/s", "2.5 GT/s"; "Unknown" and garbage -> 0. */
unsigned int pcie_speed_parse(const char *s);
/* "8GT/s", "2.5GT/s"; "-" when 0. */
const char *pcie_speed_str(unsigned int mts, char *buf, size_t len);
/* Classes that are GPUs here (see the top of this file). */
bool pcie_class_is_gpu(uint32_t class_code, uint16_t vendor);

/*
 * The PCI Express capability's port type and the ACS capability of one
 * function, from the first @len bytes of its config space (little
 * endian, as sysfs `config` gives it).  @len < 4096 (a reader without
 * root sees 64 or 256 bytes) leaves acs PCIE_ACS_UNREAD; capability
 * lists that loop or point outside are cut short.
 */
void pcie_config_parse(const uint8_t *cfg, size_t len, enum pcie_port_type *type,
		       struct pcie_acs *acs);
const char *pcie_port_type_name(enum pcie_port_type t);

/*
 * The firmware LLDP agent from a driver's private flags (ETHTOOL_GPFLAGS,
 * or the text of `ethtool --show-priv-flags`): i40e "disable-fw-lldp"
 * (on: agent off), ice "fw-lldp-agent" (on: agent on).  Call once per flag;
 * flags of no meaning here leave @d as it is.
 */
void pcie_fw_lldp_flag(struct pcie_dev *d, const char *flag, bool on);
/* Every "name: on|off" line of `ethtool --show-priv-flags IF` text through pcie_fw_lldp_flag(). */
void pcie_fw_lldp_parse(struct pcie_dev *d, const char *text, size_t len);
const char *pcie_fw_lldp_name(enum pcie_fw_lldp s);

/* Kernel release "5.15.0-91-generic" is at least @major.@minor. */
bool pcie_kernel_at_least(const char *release, unsigned int major, unsigned int minor);

#endif
