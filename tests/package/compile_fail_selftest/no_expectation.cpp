// The first line has no expect-error marker, so the test must fail even though compilation fails.
int main() { return undeclared_name; }
