// expect-error: .*
int main() { return 0; }
