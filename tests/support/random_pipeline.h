#pragma once
#include "pipeline_corpus.h"
namespace tessera::testing { struct RandomPipeline {}; }
