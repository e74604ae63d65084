#include "python/src/proto_to_python.h"

#include <stdexcept>
#include <string>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"

namespace hloscope::python {

namespace py = pybind11;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

namespace {

py::object Scalar(const Message& m, const Reflection& r, const FieldDescriptor& f, int index) {
  const bool rep = f.is_repeated();
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return py::int_(rep ? r.GetRepeatedInt32(m, &f, index) : r.GetInt32(m, &f));
    case FieldDescriptor::CPPTYPE_INT64:
      return py::int_(rep ? r.GetRepeatedInt64(m, &f, index) : r.GetInt64(m, &f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return py::int_(rep ? r.GetRepeatedUInt32(m, &f, index) : r.GetUInt32(m, &f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return py::int_(rep ? r.GetRepeatedUInt64(m, &f, index) : r.GetUInt64(m, &f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return py::float_(rep ? r.GetRepeatedDouble(m, &f, index) : r.GetDouble(m, &f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return py::float_(rep ? r.GetRepeatedFloat(m, &f, index) : r.GetFloat(m, &f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return py::bool_(rep ? r.GetRepeatedBool(m, &f, index) : r.GetBool(m, &f));
    case FieldDescriptor::CPPTYPE_ENUM:
      return py::str((rep ? r.GetRepeatedEnum(m, &f, index) : r.GetEnum(m, &f))->name());
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string s = rep ? r.GetRepeatedString(m, &f, index) : r.GetString(m, &f);
      if (f.type() == FieldDescriptor::TYPE_BYTES) return py::bytes(s);
      // Names from the input are kept even when they are not valid UTF-8.
      PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
      if (o == nullptr) throw py::error_already_set();
      return py::reinterpret_steal<py::object>(o);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MessageToPython(rep ? r.GetRepeatedMessage(m, &f, index) : r.GetMessage(m, &f));
  }
  throw std::logic_error("unknown protobuf field type");
}

}  // namespace

py::dict MessageToPython(const Message& message) {
  const Reflection& r = *message.GetReflection();
  const google::protobuf::Descriptor& d = *message.GetDescriptor();
  py::dict out;
  for (int i = 0; i < d.field_count(); ++i) {
    const FieldDescriptor& f = *d.field(i);
    if (f.is_repeated()) {
      const int n = r.FieldSize(message, &f);
      py::list items(n);
      for (int k = 0; k < n; ++k) items[k] = Scalar(message, r, f, k);
      out[py::str(f.name())] = std::move(items);
    } else if (f.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !r.HasField(message, &f)) {
      // An absent sub-message (no XLA assignment, no pipeline) is None, as the JSON omits it.
      out[py::str(f.name())] = py::none();
    } else {
      out[py::str(f.name())] = Scalar(message, r, f, -1);
    }
  }
  return out;
}

py::object JsonReportToPython(std::string_view json, Message& message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &message, options);
  if (!status.ok()) {
    throw std::runtime_error("hloscope: a report does not read back through its schema (" +
                             message.GetDescriptor()->full_name() + "): " + status.ToString());
  }
  return MessageToPython(message);
}

}  // namespace hloscope::python
