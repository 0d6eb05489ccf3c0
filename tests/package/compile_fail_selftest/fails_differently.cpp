// expect-error: selftest: this message never appears
int main() { return undeclared_name; }
