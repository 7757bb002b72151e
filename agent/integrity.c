/*
 * integrity.c - re-check a mapped segment's header against the file.
 *
 * Reads the header through its own descriptor (never through a mapping, so
 * a shrunk file cannot fault here) and compares the fields that stay fixed
 * for a segment's whole life (docs/segment-format.md).  Never stores.
 */
#include "integrity.h"
#include "layout.h" /* struct seg_header: the bytes of docs/segment-format.md */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

bool integrity_header_matches(const char *path, const struct statctr_seg_info *info)
{
	struct seg_header h;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT;
	n = pread(fd, &h, sizeof(h), 0);
	close(fd);
	return n == (ssize_t)sizeof(h) && memcmp(h.magic, SEG_MAGIC, 8) == 0 &&
	       h.version == LAYOUT_VERSION && h.header_size == HEADER_SIZE &&
	       h.file_size == info->size && h.generation == info->generation &&
	       h.created_ns == info->created_ns && h.creator_pid == (uint32_t)info->creator_pid &&
	       h.nslots == info->nslots && h.ncells == info->ncells && h.ntables == info->ntables;
}
