// The CLI interrupted: SIGINT / SIGTERM stop a run cleanly, a batch keeps its finished products only.
#include "cli_fixture.hpp"

// SIGINT / SIGTERM during a long run: stops within a second, exit 128 + signal, no output and no
// temporary left, and a previous product at the output path untouched.
TEST_F(Cli, SignalsStopCleanly) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  {  // A large raw file (zeros are valid samples): 4096 x 8192 complex64.
    const std::size_t na = 4096, nr = 8192;
    write_npy("big.npy", "<c8", "(" + std::to_string(na) + ", " + std::to_string(nr) + ")", std::string(na * nr * 8, '\0'));
  }
  struct Run {
    std::vector<std::string> args;
    int signal;
    std::string output;
  };
  write_text_file(path("previous.npy"), "previous product");
  ParamsFile big = load_params(path("scene.json"));
  big.scene->azimuth_lines = 8192;
  big.scene->range_samples = 8192;
  write_text_file(path("big_scene.json"), to_json_text(big));
  const Run runs[] = {
      // One thread each, so the runs last seconds on any machine (a 16-core one finished in 0.6 s).
      {{"focus", "--azimuth", "circular", path("big.npy"), "--params", path("scene.json"), "-o", path("previous.npy"), "--backend", "cpu",
        "--threads", "1"},
       SIGINT, path("previous.npy")},
      {{"simulate", path("big_scene.json"), "-o", path("sim.npy"), "--threads", "1"}, SIGTERM, path("sim.npy")},
  };
  for (const Run& r : runs) {
    SCOPED_TRACE(r.args[0]);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::vector<char*> argv{const_cast<char*>(cli.c_str())};
      for (const auto& a : r.args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      freopen("/dev/null", "w", stdout);
      freopen((dir + "/signal_stderr").c_str(), "w", stderr);
      execv(cli.c_str(), argv.data());
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // started (handlers installed), not done
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "finished before the signal: make the run longer";
    const auto t0 = std::chrono::steady_clock::now();
    kill(pid, r.signal);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 128 + r.signal) << slurp(dir + "/signal_stderr");
    EXPECT_LT(stop_s, 1.0);
    EXPECT_NE(slurp(dir + "/signal_stderr").find("stopped"), std::string::npos) << slurp(dir + "/signal_stderr");
    for (const auto& e : fs::directory_iterator(dir))
      EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << "temporary file left: " << e.path();
    std::printf("%s stopped %.3f s after %s\n", r.args[0].c_str(), stop_s, r.signal == SIGINT ? "SIGINT" : "SIGTERM");
  }
  EXPECT_EQ(slurp(path("previous.npy")), "previous product");
  EXPECT_FALSE(fs::exists(path("sim.npy")));
}

// Many scenes in one process (--output-dir): each product as <name>.<format>, the same bytes as one
// by one; a batch stopped by SIGINT leaves every finished product and no partial one.
TEST_F(Cli, BatchOfScenesAndItsInterruption) {
  small_scene();
  const std::string cli = test::env_or("SARFUSE_TEST_CLI", SARFUSE_CLI);
  fs::create_directory(path("batch"));
  fs::copy_file(path("raw.npy"), path("second.npy"));
  const std::string common = " --params " + path("scene.json") + " --azimuth circular --backend cpu --threads 2";
  Result r = run("focus " + path("raw.npy") + " " + path("second.npy") + " --output-dir " + path("batch") + " --format h5" + common);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"raw", "second"}) {  // the second with the plan of the first
    r = run("focus " + path(std::string(name) + ".npy") + " -o " + path("one.h5") + common);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(slurp(path("batch/" + std::string(name) + ".h5")) == slurp(path("one.h5"))) << name;
  }
  expect_failure("focus " + path("raw.npy") + " " + path("second.npy") + " -o " + path("x.npy") + common,
                 "several inputs need --output-dir", path("x.npy"));
  expect_failure("focus " + path("raw.npy") + " --output-dir " + path("nope") + common, "no such folder", path("nope"));

  // Eight large scenes, one thread: SIGINT once the first product exists.
  {
    const std::size_t na = 2048, nr = 4096;
    write_npy("big.npy", "<c8", "(" + std::to_string(na) + ", " + std::to_string(nr) + ")", std::string(na * nr * 8, '\1'));
  }
  fs::create_directory(path("stopped"));
  std::vector<std::string> args = {"focus"};
  for (int k = 0; k < 8; ++k) {
    const std::string in = path("big" + std::to_string(k) + ".npy");
    fs::create_hard_link(path("big.npy"), in);
    args.push_back(in);
  }
  for (const char* a : {"--output-dir", "", "--params", "", "--azimuth", "circular", "--backend", "cpu", "--threads", "1"})
    args.push_back(a);
  args[10] = path("stopped");
  args[12] = path("scene.json");
  fs::remove(path("big.npy"));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(cli.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    freopen((dir + "/batch_stderr").c_str(), "w", stderr);
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  for (int k = 0; k < 600 && !fs::exists(path("stopped/big0.npy")); ++k) {
    ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the batch ended before its first product: " << slurp(dir + "/batch_stderr");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "the batch finished before the signal: make it longer";
  kill(pid, SIGINT);
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << slurp(dir + "/batch_stderr");
  std::size_t complete = 0;
  for (const auto& e : fs::directory_iterator(path("stopped"))) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "temporary file left: " << name;
    if (e.path().extension() != ".npy") continue;
    EXPECT_TRUE(fs::exists(e.path().string() + ".json")) << name;
    const ComplexImage img = read_image(e.path().string());  // whole and readable
    EXPECT_EQ(img.lines(), 2048u);
    ++complete;
  }
  EXPECT_GE(complete, 1u);
  EXPECT_LT(complete, 8u);
  std::printf("SIGINT after the first product: %zu of 8 products complete, none partial\n", complete);
}
