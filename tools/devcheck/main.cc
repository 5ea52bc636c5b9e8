#include <iostream>

#include "command.h"

int main(int argc, char** argv) { return devcheck::cli::run(argc, argv, std::cout, std::cerr); }
