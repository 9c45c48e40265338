//===- OptionsTest.cpp - Command-line parsing -----------------------------===//

#include "autodist/runtime/Options.h"

#include "TestUtil.h"

using namespace autodist::rt;
using autodist::rt::test::errorOf;

namespace {
Options parse(std::vector<std::string> args) {
  args.insert(args.begin(), "model.train");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  return parseOptions(argv.size(), argv.data());
}

std::string usageError(std::vector<std::string> args) {
  int code = 0;
  std::string msg = errorOf([&] { parse(args); }, &code);
  EXPECT_EQ(code, ExitUsage) << msg;
  return msg;
}
} // namespace

TEST(Options, ParsesEveryFlag) {
  Options o = parse({"--data=train.npz", "--steps=100", "--batch-size", "32",
                     "--lr=0.05", "--log=m.jsonl", "--save=out.onnx",
                     "--eval=test.npz", "--predict=pred.npy"});
  EXPECT_EQ(o.data, "train.npz");
  EXPECT_EQ(o.steps, 100);
  EXPECT_EQ(o.batchSize, 32);
  ASSERT_TRUE(o.lr);
  EXPECT_DOUBLE_EQ(*o.lr, 0.05);
  EXPECT_EQ(o.log, "m.jsonl");
  EXPECT_EQ(o.save, "out.onnx");
  EXPECT_EQ(o.eval, "test.npz");
  EXPECT_EQ(o.predict, "pred.npy");
  EXPECT_TRUE(o.checkpoint.empty());
  EXPECT_EQ(o.checkpointEvery, 0);
  EXPECT_FALSE(o.resume);
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.seed);
  EXPECT_EQ(parse({"--steps=0", "--batch-size=1", "--seed=42"}).seed, 42u);
}

TEST(Options, CheckpointFlags) {
  // --resume is a switch: the argument after it is not its value.
  Options o = parse({"--data=d.npz", "--resume", "--steps=20", "--batch-size=4",
                     "--checkpoint", "ckpt", "--checkpoint-every=5"});
  EXPECT_TRUE(o.resume);
  EXPECT_EQ(o.steps, 20);
  EXPECT_EQ(o.checkpoint, "ckpt");
  EXPECT_EQ(o.checkpointEvery, 5);
}

TEST(Options, EvalOnlyNeedsNoData) {
  Options o = parse({"--steps=0", "--batch-size=8", "--eval=test.npz"});
  EXPECT_EQ(o.steps, 0);
  EXPECT_TRUE(o.data.empty());
  EXPECT_FALSE(o.lr);
}

TEST(Options, HelpWinsOverEverything) {
  EXPECT_TRUE(parse({"--bogus", "--help"}).help);
  EXPECT_TRUE(parse({"-h"}).help);
}

TEST(Options, Errors) {
  EXPECT_EQ(usageError({"--foo", "--steps=1"}),
            "unknown flag '--foo' (see --help)");
  EXPECT_EQ(
      usageError({"--steps=abc"}),
      "invalid value 'abc' for --steps (expected a non-negative integer)");
  EXPECT_EQ(usageError({"--steps=-1"}),
            "invalid value '-1' for --steps (expected a non-negative integer)");
  EXPECT_EQ(usageError({"--steps=1", "--batch-size=0"}),
            "invalid value '0' for --batch-size (expected a positive integer)");
  EXPECT_EQ(
      usageError({"--steps=1", "--batch-size=4x"}),
      "invalid value '4x' for --batch-size (expected a positive integer)");
  EXPECT_EQ(usageError({"--lr=fast"}),
            "invalid value 'fast' for --lr (expected a number)");
  EXPECT_EQ(usageError({"--lr=nan"}),
            "invalid value 'nan' for --lr (expected a number)");
  EXPECT_EQ(usageError({"--data="}),
            "invalid value '' for --data (expected a file name)");
  EXPECT_EQ(usageError({"--steps"}), "missing value for --steps");
  EXPECT_EQ(usageError({"train.npz"}),
            "unexpected argument 'train.npz' (see --help)");
  EXPECT_EQ(usageError({"--data=a.npz", "--batch-size=2"}),
            "missing required flag --steps (see --help)");
  EXPECT_EQ(usageError({"--data=a.npz", "--steps=2"}),
            "missing required flag --batch-size (see --help)");
  EXPECT_EQ(usageError({"--steps=2", "--batch-size=2"}),
            "missing required flag --data (see --help)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--predict=p.npy"}),
            "--predict needs --eval (the samples to predict)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--resume"}),
            "--resume needs --checkpoint=DIR (where to resume from)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--checkpoint-every=3"}),
            "--checkpoint-every needs --checkpoint=DIR (where to write)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--resume=yes"}),
            "--resume takes no value");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--overwrite"}),
            "--overwrite needs --checkpoint=DIR (the checkpoint to replace)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--checkpoint=ck",
                        "--overwrite", "--resume"}),
            "--overwrite and --resume exclude each other (--resume continues "
            "from the checkpoint, --overwrite starts over)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--overwrite=1"}),
            "--overwrite takes no value");
  EXPECT_TRUE(
      parse({"--steps=0", "--batch-size=2", "--checkpoint=ck", "--overwrite"})
          .overwrite);
  EXPECT_EQ(usageError({"--resume", "ckpt"}),
            "unexpected argument 'ckpt' (see --help)");
  EXPECT_EQ(usageError({"--checkpoint-every=0"}),
            "invalid value '0' for --checkpoint-every (expected a positive "
            "integer)");
  EXPECT_EQ(usageError({"--checkpoint="}),
            "invalid value '' for --checkpoint (expected a directory)");
  EXPECT_EQ(usageError({"--seed=-3"}),
            "invalid value '-3' for --seed (expected a non-negative integer)");
}

TEST(Options, HelpListsEveryFlag) {
  std::string help = helpText("model.train");
  for (const char *flag :
       {"--data", "--steps", "--batch-size", "--lr", "--log", "--save",
        "--eval", "--predict", "--checkpoint", "--checkpoint-every", "--resume",
        "--inputs", "--outputs", "--seed", "--pin", "--overwrite", "--help"})
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
}

TEST(Options, Inference) {
  // Neither --steps nor --batch-size is needed; --batch-size 0 = one call.
  Options o = parse({"--inputs=in.npz", "--outputs", "out.npz"});
  EXPECT_TRUE(o.inferenceOnly());
  EXPECT_EQ(o.inputs, "in.npz");
  EXPECT_EQ(o.outputs, "out.npz");
  EXPECT_EQ(o.batchSize, 0);
  EXPECT_EQ(o.steps, 0);
  o = parse(
      {"--steps=0", "--inputs=in.npz", "--outputs=out.npz", "--batch-size=3"});
  EXPECT_EQ(o.batchSize, 3);
  EXPECT_FALSE(parse({"--steps=0", "--batch-size=2"}).inferenceOnly());
}

TEST(Options, ExternalData) {
  // Both for inference and for training.
  EXPECT_EQ(
      parse({"--inputs=in.npz", "--outputs=out.npz", "--external-data=/w"})
          .externalData,
      "/w");
  EXPECT_EQ(parse({"--steps=0", "--batch-size=2", "--external-data", "d"})
                .externalData,
            "d");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--external-data="}),
            "invalid value '' for --external-data (expected a directory)");
}

TEST(Options, InferenceErrors) {
  EXPECT_EQ(usageError({"--inputs=in.npz"}),
            "--inputs needs --outputs=FILE.npz (where to write the model's "
            "outputs)");
  EXPECT_EQ(usageError({"--outputs=out.npz", "--batch-size=2"}),
            "--outputs needs --inputs=FILE.npz (the samples to run the model "
            "on)");
  EXPECT_EQ(usageError({"--inputs=", "--outputs=out.npz"}),
            "invalid value '' for --inputs (expected a file name)");
  std::vector<std::string> io = {"--inputs=in.npz", "--outputs=out.npz"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), io.begin(), io.end());
    return usageError(extra);
  };
  EXPECT_EQ(with({"--steps=5"}),
            "--steps=5 cannot be combined with --inputs/--outputs, which only "
            "run inference (drop --steps)");
  EXPECT_EQ(with({"--data=train.npz"}),
            "--data cannot be combined with --inputs/--outputs, which only "
            "run inference (drop --data)");
  for (const char *flag : {"--eval=t.npz", "--predict=p.npy", "--save=m.onnx",
                           "--log=l.jsonl", "--lr=0.1", "--checkpoint=ck"}) {
    std::string name(flag, std::string(flag).find('='));
    EXPECT_EQ(with({flag}), name +
                                " cannot be combined with --inputs/--outputs, "
                                "which only run inference (drop " +
                                name + ")");
  }
  EXPECT_EQ(with({"--resume"}),
            "--resume cannot be combined with --inputs/--outputs, which only "
            "run inference (drop --resume)");
}

TEST(Options, Pin) {
  Options o = parse({"--steps=0", "--batch-size=2"});
  EXPECT_EQ(o.pin, PinMode::Auto);
  EXPECT_FALSE(o.pinGiven);
  o = parse({"--steps=0", "--batch-size=2", "--pin=cores"});
  EXPECT_EQ(o.pin, PinMode::Cores);
  EXPECT_TRUE(o.pinGiven);
  // Inference takes it too.
  EXPECT_EQ(
      parse({"--inputs=in.npz", "--outputs=out.npz", "--pin", "none"}).pin,
      PinMode::None);
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--pin=bogus"}),
            "invalid value 'bogus' for --pin (expected auto, cores or none)");
}

TEST(Options, OnNonFinite) {
  EXPECT_EQ(parse({"--steps=0", "--batch-size=2"}).onNonFinite,
            NonFinitePolicy::Stop);
  EXPECT_EQ(
      parse({"--steps=0", "--batch-size=2", "--on-nonfinite=skip"}).onNonFinite,
      NonFinitePolicy::Skip);
  EXPECT_EQ(parse({"--steps=0", "--batch-size=2", "--on-nonfinite", "continue"})
                .onNonFinite,
            NonFinitePolicy::Continue);
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--on-nonfinite=nan"}),
            "invalid value 'nan' for --on-nonfinite (expected stop, skip or "
            "continue)");
  EXPECT_NE(helpText("model.train").find("--on-nonfinite"), std::string::npos);
}

TEST(Options, CommTimeout) {
  EXPECT_EQ(parse({"--steps=0", "--batch-size=2"}).commTimeout, 600);
  EXPECT_EQ(
      parse({"--steps=0", "--batch-size=2", "--comm-timeout=2.5"}).commTimeout,
      2.5);
  EXPECT_EQ(
      parse({"--steps=0", "--batch-size=2", "--comm-timeout=0"}).commTimeout,
      0);
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--comm-timeout=-1"}),
            "invalid value '-1' for --comm-timeout (expected seconds, 0 for no "
            "limit)");
  EXPECT_EQ(usageError({"--steps=0", "--batch-size=2", "--comm-timeout=x"}),
            "invalid value 'x' for --comm-timeout (expected a number)");
  EXPECT_NE(helpText("model.train").find("--comm-timeout"), std::string::npos);
}
