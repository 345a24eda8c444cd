// main() for a fuzz target built without libFuzzer (the normal build): runs the target once on
// each file named on the command line, so that the committed corpus and every crash found by
// fuzzing are regression tests of the ordinary test suite. A broken invariant aborts, as under
// libFuzzer; an unreadable file is an error.
//
//   <target>_replay FILE...

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " FILE...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (!file.good() && !file.eof()) {
      std::cerr << argv[i] << ": cannot read\n";
      return 1;
    }
    if (!file.is_open()) {
      std::cerr << argv[i] << ": cannot open\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "ran " << argc - 1 << " inputs\n";
  return 0;
}
