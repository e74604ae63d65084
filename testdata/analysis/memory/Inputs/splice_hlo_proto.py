# Writes an HloProto made of the module (field 1) of one and the buffer assignment (field 3)
# of another: a dump whose assignment belongs to another compilation.
#   python3 splice_hlo_proto.py MODULE_FROM.hlo.pb ASSIGNMENT_FROM.hlo.pb OUT.hlo.pb
import sys


def top_level_fields(data):
    def varint(pos):
        value = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, pos

    pos, fields = 0, {}
    while pos < len(data):
        start = pos
        tag, pos = varint(pos)
        length, pos = varint(pos)  # an HloProto's top-level fields are all messages
        pos += length
        fields[tag >> 3] = data[start:pos]
    return fields


module = top_level_fields(open(sys.argv[1], "rb").read())
assignment = top_level_fields(open(sys.argv[2], "rb").read())
open(sys.argv[3], "wb").write(module[1] + assignment[3])
